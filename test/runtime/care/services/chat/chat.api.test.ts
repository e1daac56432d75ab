/**
 * The chat app through the real app and Node-RED against the fake chat service: a `/status`
 * command from a target's chat fires the chat_app rule answering it (by long polling), an
 * emergency rule reaches the chats and a button press acknowledges it over the API's view,
 * and the webhook mode takes updates at `POST /api/v1/chat/webhook` with its secret.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { engineQuiet } from "../../../../support/engine-quiet";
import { eventually, importRule as importRuleInto, runsOf as runsOfRule } from "../../../../support/eventually";
import { startFakeChat, type ChatUser, type FakeChat } from "../../../../fakes/chat-server";

const TOKEN = "77:api-test-token";
const ANNA: ChatUser = { id: 501, is_bot: false, first_name: "Anna", username: "anna" };
const SECRET = "a-webhook-secret-0123456789";

describe("chat app through the app (fake Bot API)", function () {
  this.timeout(60_000);
  let chat: FakeChat;
  let t: TestApp;

  const importRule = (bundle: Record<string, unknown>) => importRuleInto(t, bundle);
  const runsOf = (ruleId: number) => runsOfRule(t, ruleId);

  async function start(mode: "polling" | "webhook", publicUrl?: string) {
    chat = await startFakeChat({
      token: TOKEN,
      chats: [
        { id: 1001, type: "private" },
        { id: 1002, type: "private" },
      ],
    });
    t = await startTestApp({
      nodeRed: true,
      clock: new ManualClock(Date.parse("2026-06-01T06:14:00Z")),
      settings: {
        app: { timezone: "Europe/Berlin", ...(publicUrl ? { public_url: publicUrl } : {}) },
        notifications: {
          chat_app: {
            api_base_url: chat.url,
            token: TOKEN,
            mode,
            webhook_secret: SECRET,
            poll_timeout_seconds: 1,
            targets: [
              { name: "Anna", chat_id: 1001, alert_levels: ["emergency"] },
              { name: "Ben", chat_id: 1002, alert_levels: [] },
            ],
          },
        },
      },
    });
  }
  afterEach(async () => {
    await t?.close();
    await chat?.close();
  });

  it("/status from a target's chat fires the chat_app rule for that command with the message as trigger_input; other commands and unknown chats do not", async () => {
    await start("polling");
    const status = await importRule({
      rule: { name: "Status", trigger_type: "chat_app", chat_command: "status" },
      steps: [{ label: "c", step_type: "condition", config: { expression: "trigger_input.command == 'status'" } }],
    });
    const where = await importRule({
      rule: { name: "Where", trigger_type: "chat_app", chat_command: "/where" },
      steps: [{ label: "c", step_type: "condition", config: { expression: "true" } }],
    });
    assert.equal((await t.get(`/api/v1/rules/${status}`)).body.chat_command, "status");
    assert.equal((await t.get(`/api/v1/rules/${where}`)).body.chat_command, "where", "the slash is dropped");
    chat.sendText(4242, "/status", { id: 9, is_bot: false, first_name: "Mallory" });
    chat.sendText(1002, "/unknowncmd", ANNA);
    chat.sendText(1001, "/status@careflow_bot now please", ANNA);
    const [run] = await eventually("the status run", async () => {
      const runs = await runsOf(status);
      return runs.length && runs.every((r) => r.status !== "running" && r.status !== "pending") ? runs : undefined;
    });
    assert.equal(run!.status, "completed");
    assert.deepEqual(run!.pipeline_data.trigger_input, {
      command: "status",
      args: ["now", "please"],
      text: "/status@careflow_bot now please",
      chat_id: "1001",
      from_user: { id: 501, first_name: "Anna", username: "anna" },
    });
    assert.equal(run!.trigger_context.trigger_type, "chat_app");
    assert.equal(run!.pipeline_data.condition.result, true);
    await eventually("the updates to be consumed", () => chat.pendingUpdates() === 0 || undefined);
    assert.ok(
      chat.calls.some((c) => c.method === "deleteWebhook"),
      "polling removes a webhook first",
    );
    // Updates are handled one after another in the order sent: Mallory's and the unknown command
    // were done with before Anna's fired its run; any run they started is written once the engine is quiet.
    await engineQuiet(t.app.engine);
    assert.equal((await runsOf(status)).length, 1, "Mallory's /status was ignored");
    assert.equal((await runsOf(where)).length, 0);
  });

  it("a command's answer goes to the chat that asked, not to every chat of its level", async () => {
    await start("polling");
    await importRule({
      rule: { name: "Status", trigger_type: "chat_app", chat_command: "status" },
      steps: [
        { label: "Answer", step_type: "notification", config: { alert_level: "info", channels: ["chat_app"], chat_app_template: "Rose is in the kitchen" } },
      ],
    });
    const answers = () => chat.messages.filter((m) => m.text === "Rose is in the kitchen");
    // Anna's chat takes only emergencies, Ben's every level: Anna asked, so Anna gets the answer.
    chat.sendText(1001, "/status", ANNA);
    await eventually("the answer to Anna", () => answers().length === 1);
    chat.sendText(1002, "/status", { id: 502, is_bot: false, first_name: "Ben" });
    await eventually("the answer to Ben", () => answers().length === 2);
    assert.deepEqual(
      answers().map((m) => m.chat_id),
      [1001, 1002],
      "each answer in the chat that asked, none in the other",
    );
  });

  it("an emergency rule reaches the chats; a button press acknowledges it, edits both chats and the alert's history says who and when", async () => {
    await start("polling");
    const rule = await importRule({
      rule: { name: "Fall", trigger_type: "chat_app", chat_command: "checkin" },
      steps: [
        { label: "Fall", step_type: "notification", config: { alert_level: "emergency", channels: ["chat_app"], chat_app_template: "Rose may have fallen" } },
      ],
    });
    chat.sendText(1002, "/checkin", ANNA);
    await eventually("two alert messages", () => chat.messages.filter((m) => m.reply_markup).length === 2 || undefined);
    const [alert] = (await t.get("/api/v1/alerts")).body;
    assert.equal(alert.execution_id, (await runsOf(rule))[0]!.id);
    const msg = chat.messages.find((m) => m.chat_id === 1001)!;
    chat.pressButton(1001, msg.message_id, `ack:${alert.id}`, ANNA);
    await eventually("both edited", () => chat.messages.every((m) => /Anna is on it, 08:14/.test(m.text ?? "")) || undefined);
    // The history line of an edit is written after the chat service answered it: wait for both.
    const edited = (v: { history: Array<{ event: string }> }) => v.history.filter((h) => h.event === "edited").length === 2;
    const view = await eventually("both edits in the history", async () => {
      const v = (await t.get(`/api/v1/alerts/${alert.id}`)).body;
      return edited(v) ? v : undefined;
    });
    assert.equal(view.assistance_needed, true);
    assert.equal(view.next_escalation_at, null);
    const events = view.history.map((h: { event: string; target: string | null; at: string }) => `${h.event}:${h.target ?? "-"}@${h.at}`);
    assert.ok(events.includes("acknowledged:Anna@2026-06-01T06:14:00Z"), events.join(" "));
    assert.ok(events.filter((e: string) => e.startsWith("edited:")).length === 2, events.join(" "));
  });

  it("webhook mode: updates arrive at POST /api/v1/chat/webhook with the secret token", async () => {
    await start("webhook", "https://care.example.org/");
    const rule = await importRule({
      rule: { name: "Status", trigger_type: "chat_app", chat_command: "status" },
      steps: [{ label: "c", step_type: "condition", config: { expression: "true" } }],
    });
    const update = {
      update_id: 10,
      message: { message_id: 5, date: 0, chat: { id: 1001, type: "private" }, from: ANNA, text: "/status" },
    };
    const post = (secret: string | null) =>
      fetch(`${t.baseUrl}/api/v1/chat/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}) },
        body: JSON.stringify(update),
      });
    assert.equal((await post(null)).status, 401);
    assert.equal((await post("wrong-secret-0123456789")).status, 403);
    assert.equal((await post(SECRET)).status, 200);
    await eventually("the run", async () => ((await runsOf(rule)).length === 1 ? true : undefined));
    assert.equal(chat.calls.filter((c) => c.method === "getUpdates").length, 0, "no polling in webhook mode");
    const registered = await chat.waitFor((c) => c.method === "setWebhook");
    assert.equal(registered.params.url, "https://care.example.org/api/v1/chat/webhook");
    assert.equal(registered.params.secret_token, SECRET);
  });
});
