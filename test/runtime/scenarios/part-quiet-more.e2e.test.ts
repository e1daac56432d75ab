/**
 * The demo's rule "A part went quiet" (flows/examples/part-quiet.yaml) for the parts that
 * part-quiet.e2e.test.ts leaves out, on a ManualClock over real HTTP with Node-RED: a full disk
 * (a fake free-space reader), the chat bot's token refused (401: the message about the chat
 * cannot go through the chat, so the fallback's hub notify carries it), and the tracking link's
 * NATS broker going away behind a cut proxy. Each gives ONE message when the trouble has lasted
 * 30 minutes and ONE when it is over, naming the part.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startFakeChat, type FakeChat } from "../../fakes/chat-server";
import { startFakeHub, type FakeHub } from "../../fakes/hub-server";
import { ManualClock } from "../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS } from "../../../runtime/platform/health/parts-board";
import type { SettingsInput } from "../../../settings";
import { engineQuiet } from "../../support/engine-quiet";
import { eventually } from "../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../support/nats";
import { tcpProxy, type TcpProxy } from "../../support/tcp-proxy";
import { startTestApp, testAuthSettings, type TestApp, type TestAppOptions } from "../../support/test-app";

const MINUTE = 60_000;
const GIB = 1024 ** 3;
const BUNDLE = path.resolve(__dirname, "../../../../flows/examples/part-quiet.yaml");
const TOKEN = "42:part-quiet-token";
const HHMM = "\\d\\d:\\d\\d";

/** An app with the demo rule, the fake chat and the fake hub (the hub notify `notify.family`), and no device cadences. */
async function partQuietApp(clock: ManualClock, chat: FakeChat, hub: FakeHub, extra: { settings?: SettingsInput } & TestAppOptions = {}): Promise<TestApp> {
  const auth = testAuthSettings();
  // Only the part under test can go quiet: no tablet, no device cadence.
  auth.api_keys = auth.api_keys!.filter((k) => !k.permissions.includes("webapp"));
  auth.device_keys = auth.device_keys!.map((d) => ({ ...d, expect_every_minutes: null }));
  const t = await startTestApp({
    ...extra,
    nodeRed: true,
    clock,
    settings: {
      auth,
      app: { timezone: "Europe/Berlin" },
      hub: { url: hub.url, token: hub.token },
      notifications: {
        // Webhook mode: no poller, so the Bot API is called only by sends and a getMe every 5 minutes.
        chat_app: {
          api_base_url: chat.url,
          token: TOKEN,
          mode: "webhook",
          webhook_secret: "a-webhook-secret-0123456789",
          targets: [{ name: "Anna", chat_id: 1001 }],
        },
        fallback: { hub_notify_service: "notify.family" },
      },
      ...extra.settings,
    },
  });
  assert.ok(await t.app.ctx.hub!.client!.whenConnected(5000), "connected to the fake hub");
  const res = await t.request("POST", "/api/v1/rules/import", { rawBody: fs.readFileSync(BUNDLE), headers: { "content-type": "application/yaml" } });
  assert.equal(res.status, 201, res.text);
  return t;
}

/** Moves the clock tick by tick; each tick's round of probes and its runs finish. */
async function pass(t: TestApp, clock: ManualClock, ms: number): Promise<void> {
  for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
    clock.advance(SAMPLE_EVERY_MS);
    await t.app.ctx.parts?.sampled();
    await t.app.triggers!.idle();
    await engineQuiet(t.app.engine);
  }
}

const chatTexts = (chat: FakeChat) => chat.messages.map((m) => m.text ?? "");
const notifies = (hub: FakeHub) => hub.calls.filter((c) => c.domain === "notify").map((c) => String(c.service_data.message));

describe("scenario: a part went quiet, and came back (disk, chat bot, tracking)", function () {
  this.timeout(90_000);
  let chat: FakeChat;
  let hub: FakeHub;

  before(async () => {
    chat = await startFakeChat({ token: TOKEN, chats: [{ id: 1001, type: "private" }] });
    hub = await startFakeHub({ token: "hub-token-1" });
  });
  after(async () => {
    await chat?.close();
    await hub?.close();
  });

  describe("a full disk", () => {
    let t: TestApp;
    const clock = new ManualClock(Date.parse("2026-03-02T13:00:00Z"));
    let free = 50 * GIB;

    before(async () => {
      t = await partQuietApp(clock, chat, hub, { freeSpace: () => Promise.resolve(free) });
      // To a whole minute: a reading's change is dated on the next tick, within the same minute.
      await pass(t, clock, 2 * SAMPLE_EVERY_MS);
    });
    after(() => t?.close());

    it("one message once it was full for 30 minutes, none more; one when there is room again", async () => {
      const sent = chatTexts(chat).length;
      const sentHub = notifies(hub).length;
      free = 100 * 1024 ** 2;
      const full = hhmm(clock.now());
      await pass(t, clock, 29 * MINUTE);
      assert.deepEqual(chatTexts(chat).slice(sent), [], "not before 30 minutes");
      await pass(t, clock, 2 * 60 * MINUTE);
      assert.deepEqual(chatTexts(chat).slice(sent), [`The free disk of the data dir is failing since ${full} (100 MiB free).`]);

      free = 50 * GIB;
      const back = clock.now();
      await pass(t, clock, 4 * MINUTE);
      const after = chatTexts(chat).slice(sent);
      assert.equal(after.length, 2, after.join(" | "));
      assert.equal(after[1], `The free disk of the data dir is back since ${hhmm(back)} (it was failing since ${full}).`);
      assert.equal(notifies(hub).length, sentHub, "the chat worked: no fallback");
    });
  });

  describe("the chat bot's token refused (401)", () => {
    let t: TestApp;
    const clock = new ManualClock(Date.parse("2026-03-02T13:00:00Z"));

    before(async () => {
      t = await partQuietApp(clock, chat, hub);
      await pass(t, clock, SAMPLE_EVERY_MS);
    });
    after(async () => {
      // A failure here must not leave the shared fake refusing the next suite's sends.
      chat.stopFailing("sendMessage");
      chat.stopFailing("getMe");
      await t?.close();
    });

    /** A family rule's message ("Rose is not up yet"): the way a family meets a refused token. */
    async function familyMessage(): Promise<Record<string, any>> {
      const res = await t.post("/api/v1/rules/import", {
        schema_version: 1,
        rule: { name: `Not up yet ${clock.now()}`, trigger_type: "manual" },
        steps: [
          {
            label: "tell",
            step_type: "notification",
            schema_version: 1,
            config: { alert_level: "info", channels: ["chat_app"], message_template: "Rose is not up yet" },
          },
        ],
      });
      assert.equal(res.status, 201, res.text);
      const exec = (await t.post(`/api/v1/rules/${res.body.rule_id}/execute`)).body.execution_id as number;
      return eventually("the family rule's run", async () => {
        const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
        return ["completed", "failed"].includes(r.status) ? r : undefined;
      });
    }

    it("down: one message through the hub notify after 30 minutes; back: one message in the chat", async () => {
      const sentChat = chatTexts(chat).length;
      const sentHub = notifies(hub).length;
      // The Bot API refuses the token for every call until it is fixed (sends, and the check
      // careflow makes every 5 minutes in webhook mode).
      for (const method of ["sendMessage", "getMe"]) chat.failNext(method, { error_code: 401, description: "Unauthorized" }, 1000);
      const lost = hhmm(clock.now());
      const r = await familyMessage();
      assert.deepEqual(r.pipeline_data.notification_channels, { chat_app: false, hub_notify: true }, "the family's message fell back");
      assert.equal(notifies(hub).length, sentHub + 1);

      await pass(t, clock, 29 * MINUTE);
      assert.equal(notifies(hub).length, sentHub + 1, "nothing about the chat before 30 minutes");
      await pass(t, clock, 2 * 60 * MINUTE);
      const aboutChat = notifies(hub).slice(sentHub + 1);
      assert.equal(aboutChat.length, 1, aboutChat.join(" | "));
      assert.match(aboutChat[0], new RegExp(`^The chat bot has been disconnected since ${lost}\\.\\n\\(Sent here because the family chat failed\\.\\)$`));

      // The token works again; the next send is the chat's sign of life, and the return is told in the chat itself.
      chat.stopFailing("sendMessage");
      chat.stopFailing("getMe");
      const back = hhmm(clock.now());
      const ok = await familyMessage();
      assert.deepEqual(ok.pipeline_data.notification_channels, { chat_app: true });
      await pass(t, clock, 2 * MINUTE);
      const inChat = chatTexts(chat).slice(sentChat);
      assert.equal(inChat.length, 2, inChat.join(" | "));
      assert.equal(inChat[0], "Rose is not up yet");
      assert.match(inChat[1], new RegExp(`^The chat bot is back since ${back} \\(it had been disconnected since ${lost}\\)\\.$`));
      assert.equal(notifies(hub).length, sentHub + 2, "the return did not go through the hub notify");
    });
  });

  describe("the tracking link's NATS broker going away", () => {
    let t: TestApp | undefined;
    let proxy: TcpProxy | undefined;
    const clock = new ManualClock(Date.parse("2026-03-02T13:00:00Z"));
    const prefix = uniquePrefix("partquiet");

    before(async function () {
      await requireNats(this);
      const u = new URL(NATS_URL.replace(/^nats:/, "http:"));
      proxy = await tcpProxy({ host: u.hostname, port: Number(u.port || 4222) });
      t = await partQuietApp(clock, chat, hub, { settings: { cts: { enabled: true, nats_url: proxy.url, stream_prefix: prefix } } });
      await eventually("tracking connected", () => t!.app.cts.health().state === "connected" || undefined);
      // To a whole minute: the loss is seen now or on the next tick, the same minute either way.
      await pass(t, clock, 2 * SAMPLE_EVERY_MS);
    });
    after(async () => {
      await t?.close();
      await proxy?.close();
      if (t) await deleteStreams(NATS_URL, prefix).catch(() => undefined);
    });

    it("one message once it was down for 30 minutes; one when it is back", async () => {
      const app = t!;
      const sent = chatTexts(chat).length;
      const sentHub = notifies(hub).length;
      // Late from the moment the board sees it, down after the link's 2-minute grace.
      const lost = hhmm(clock.now());
      await proxy!.cut();
      await eventually("the link to notice", () => app.app.cts.health().state !== "connected" || undefined);
      await pass(app, clock, 31 * MINUTE);
      assert.deepEqual(chatTexts(chat).slice(sent), [], "not before 30 minutes down (after the link's 2-minute grace)");
      await pass(app, clock, 60 * MINUTE);
      const down = chatTexts(chat).slice(sent);
      assert.equal(down.length, 1, down.join(" | "));
      assert.match(down[0], new RegExp(`^The continuous tracking \\(NATS\\) has been disconnected since ${lost}\\.$`));

      await proxy!.restore();
      await eventually("tracking connected again", () => app.app.cts.health().state === "connected" || undefined, 20_000);
      await pass(app, clock, 2 * MINUTE);
      const all = chatTexts(chat).slice(sent);
      assert.equal(all.length, 2, all.join(" | "));
      assert.match(all[1], new RegExp(`^The continuous tracking \\(NATS\\) is back since ${HHMM} \\(it had been disconnected since ${lost}\\)\\.$`));
      assert.equal(notifies(hub).length, sentHub, "the chat worked: no fallback");
    });
  });
});

/** The Berlin time of `ms`. */
function hhmm(ms: number): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Berlin", hour: "2-digit", minute: "2-digit" }).format(ms);
}
