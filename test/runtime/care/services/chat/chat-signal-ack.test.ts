/**
 * A dementia signal's alert in chat: the signal arrives over NATS from the fake tracking
 * service, its rule alerts the chats, and the chat buttons or a reply acknowledge the alert and
 * the signal it came from (by the chat user, the reply's text as feedback), as REST would.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually, importRule } from "../../../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../../support/nats";
import { CtsPublisher } from "../../../../fakes/cts-publisher";
import { startFakeChat, type ChatUser, type FakeChat } from "../../../../fakes/chat-server";

const TOKEN = "77:signal-ack-token";
const ANNA: ChatUser = { id: 501, is_bot: false, first_name: "Anna", username: "anna" };
const BEN: ChatUser = { id: 502, is_bot: false, first_name: "Ben", username: "ben" };

interface SignalView {
  id: number;
  signal_id: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  feedback: string | null;
}

describe("chat: a dementia signal's alert acknowledged from chat acknowledges the signal", function () {
  this.timeout(90_000);
  let t: TestApp;
  let chat: FakeChat;
  let pub: CtsPublisher;
  const prefix = uniquePrefix("chatack");
  const clock = new ManualClock(Date.now());

  before(async function () {
    await requireNats(this);
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    chat = await startFakeChat({ token: TOKEN, chats: [{ id: 1001, type: "private" }] });
    t = await startTestApp({
      clock,
      nodeRed: true,
      settings: {
        cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix },
        notifications: {
          chat_app: {
            api_base_url: chat.url,
            token: TOKEN,
            mode: "polling",
            poll_timeout_seconds: 1,
            targets: [{ name: "Family", chat_id: 1001, alert_levels: ["emergency"] }],
          },
        },
      },
    });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    await importRule(t, {
      rule: { name: "Rose paces at night", trigger_type: "dementia_signal" },
      contexts: [{ context_type: "dementia_signal", config: { kinds: ["pacing"], severity_min: "warning", cooldown_minutes: 0 } }],
      steps: [
        {
          label: "Tell the family",
          step_type: "notification",
          config: { alert_level: "emergency", channels: ["chat_app"], chat_app_template: "Rose is pacing" },
        },
      ],
    });
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
  });
  after(async () => {
    await t?.close();
    await chat?.close();
    await pub?.close();
    await deleteStreams(NATS_URL, prefix).catch(() => undefined);
  });

  const signal = async (signalId: string): Promise<SignalView> =>
    ((await t.get("/api/v1/cts/signals")).body as SignalView[]).find((s) => s.signal_id === signalId)!;
  /** Publishes a pacing signal and answers its alert's chat message once it arrived. */
  const alertOf = async (signalId: string) => {
    const before = chat.messages.filter((m) => m.reply_markup).length;
    await pub.signal({ signal_id: signalId, identity_id: "rose", kind: "pacing", severity: "warning" });
    await eventually("the alert in chat", () => chat.messages.filter((m) => m.reply_markup).length === before + 1 || undefined);
    const msg = chat.messages.filter((m) => m.reply_markup).at(-1)!;
    const alert = ((await t.get("/api/v1/alerts")).body as Array<{ id: number; description: string }>)[0]!;
    return { msg, alert };
  };

  it("the 'on it' button acknowledges the signal by the chat user", async () => {
    const { msg, alert } = await alertOf("p-1");
    assert.equal((await signal("p-1")).acknowledged_at, null);
    chat.pressButton(1001, msg.message_id, `ack:${alert.id}`, ANNA);
    const acked = await eventually("the signal acknowledged", async () => {
      const s = await signal("p-1");
      return s.acknowledged_at ? s : undefined;
    });
    assert.equal(acked.acknowledged_by, "Anna");
    assert.equal(acked.feedback, null);
    assert.ok(Math.abs(Date.parse(acked.acknowledged_at!) - clock.now()) < 1000, "acknowledged at the app's now");
    const unacked = (await t.get("/api/v1/cts/signals/unacknowledged")).body as SignalView[];
    assert.ok(!unacked.some((s) => s.signal_id === "p-1"));
  });

  it("a reply to the alert acknowledges the signal with the reply as feedback; the first acknowledgment stays", async () => {
    const { msg, alert } = await alertOf("p-2");
    chat.sendText(1001, "resolved, she is back in bed", BEN, msg.message_id);
    const acked = await eventually("the signal acknowledged", async () => {
      const s = await signal("p-2");
      return s.acknowledged_at ? s : undefined;
    });
    assert.equal(acked.acknowledged_by, "Ben");
    assert.equal(acked.feedback, "resolved, she is back in bed");
    assert.equal((await t.get(`/api/v1/alerts/${alert.id}`)).body.resolved, true);
    const first = await signal("p-1");
    assert.equal(first.acknowledged_by, "Anna", "p-1 unchanged");
  });
});
