/**
 * What the bot answers when something goes wrong (issue 49), in the chat's language, against the
 * fake Bot API: a press or a reply after someone resolved the alert, a button that no longer
 * works, an alert that is gone, a command careflow does not know (not one meant for another bot
 * in the group), and a command whose answer failed.
 */
import assert from "node:assert/strict";
import { checkConfig } from "../../../../../nodes/_kit/config";
import { handler } from "../../../../../nodes/steps/notification/notification.handler";
import { spec } from "../../../../../nodes/steps/notification/notification.node";
import { listAlerts } from "../../../../../runtime/household/alerts/alerts.service";
import { startEscalation, type EscalationHandle } from "../../../../../runtime/care/services/notify/escalation";
import { startChat, type ChatLink } from "../../../../../runtime/care/services/chat/chat.service";
import { startFakeChat, type ChatUser, type FakeChat } from "../../../../fakes/chat-server";
import { notificationInput, notifyEnv, type NotifyEnv } from "../notify/notify-support";
import { eventually } from "../../../../support/eventually";
import { trigger } from "../../../../nodes/handler-context";
import { careServices } from "../../../../../runtime/care/services/care-services";

const TOKEN = "42:test-token";
const ANNA: ChatUser = { id: 501, is_bot: false, first_name: "Anna" };
const BEN: ChatUser = { id: 502, is_bot: false, first_name: "Ben" };
const CHATS = { anna: 1001, ben: 1002 };

describe("chat: what goes wrong is said in the chat's language (fake Bot API)", function () {
  this.timeout(30_000);
  let chat: FakeChat;
  let env: NotifyEnv;
  let link: ChatLink;
  let esc: EscalationHandle;

  beforeEach(async () => {
    chat = await startFakeChat({ token: TOKEN, chats: Object.values(CHATS).map((id) => ({ id, type: "private" as const })) });
    env = await notifyEnv({
      notifications: {
        chat_app: {
          api_base_url: chat.url,
          token: TOKEN,
          poll_timeout_seconds: 1,
          targets: [
            { name: "Anna", chat_id: CHATS.anna, alert_levels: [], language: "de" },
            { name: "Ben", chat_id: CHATS.ben, alert_levels: [] },
          ],
        },
      },
    });
    link = startChat(env.ctx);
    env.ctx.chat = link;
    esc = startEscalation(env.ctx, { services: careServices(env.ctx) });
    await esc.settled();
  });
  afterEach(async () => {
    await esc?.stop();
    await link?.stop();
    await chat?.close();
    await env?.close();
  });

  async function alert(text: string): Promise<number> {
    const check = checkConfig(spec, { alert_level: "emergency", channels: ["chat_app"], chat_app_template: text });
    assert.ok(check.ok, JSON.stringify(check));
    const input = notificationInput({}, { trigger: trigger({ trigger_type: "sensor_event", room_name: "Hall", sensor_id: "cam1" }) });
    await handler(env.hctx(), input, check.config as never);
    await esc.settled();
    return (await listAlerts(env.ctx, { limit: 1, offset: 0 }))[0]!.id;
  }
  const messageTo = (chatId: number) => chat.messages.find((m) => m.chat_id === chatId && m.reply_markup)!;
  const textsTo = (chatId: number) => chat.messages.filter((m) => m.chat_id === chatId && !m.reply_markup).map((m) => m.text);
  const toast = async (n: number): Promise<string | null> => {
    await eventually(`toast ${n}`, () => chat.callbackAnswers.length >= n);
    return chat.callbackAnswers[n - 1]!.text;
  };

  it("a press or a reply after Ben resolved it: 'Schon erledigt von Ben' in Anna's German chat, in English in his", async () => {
    const id = await alert("Rose ist gestürzt");
    chat.pressButton(CHATS.ben, messageTo(CHATS.ben).message_id, `res:${id}`, BEN);
    assert.equal(await toast(1), "Marked resolved");
    chat.pressButton(CHATS.anna, messageTo(CHATS.anna).message_id, `ack:${id}`, ANNA);
    assert.match((await toast(2)) ?? "", /^Schon erledigt von Ben, \d\d:\d\d$/);
    chat.pressButton(CHATS.ben, messageTo(CHATS.ben).message_id, `res:${id}`, BEN);
    assert.match((await toast(3)) ?? "", /^Already resolved by Ben, \d\d:\d\d$/);
    // A reply has no toast: it is answered in the chat.
    chat.sendText(CHATS.anna, "bin unterwegs", ANNA, messageTo(CHATS.anna).message_id);
    await eventually("the answer to her reply", () => textsTo(CHATS.anna).length === 1);
    assert.match(textsTo(CHATS.anna)[0]!, /^Schon erledigt von Ben, \d\d:\d\d$/);
  });

  it("a button that no longer works, and an alert that is gone, in German", async () => {
    const id = await alert("Rose ist gestürzt");
    const m = messageTo(CHATS.anna);
    chat.pressButton(CHATS.anna, m.message_id, "snooze:1", ANNA);
    assert.equal(await toast(1), "Diese Schaltfläche gilt nicht mehr");
    chat.pressButton(CHATS.anna, m.message_id, `ack:${id + 1000}`, ANNA);
    assert.equal(await toast(2), "Diesen Alarm gibt es nicht mehr");
  });

  it("a command careflow does not know, in the chat's language, naming those it knows; one meant for another bot is left alone", async () => {
    chat.sendText(CHATS.anna, "/wetter@other_bot", ANNA);
    chat.sendText(CHATS.anna, "/wetter", ANNA);
    chat.sendText(CHATS.ben, "/weather@careflow_bot", BEN);
    await eventually("both answers", () => textsTo(CHATS.anna).length + textsTo(CHATS.ben).length === 2);
    assert.deepEqual(textsTo(CHATS.anna), ["Den Befehl /wetter kennt careflow leider nicht. careflow kennt: /checkin, /status, /where."]);
    assert.deepEqual(textsTo(CHATS.ben), ["Sorry, careflow does not know /weather. It knows: /checkin, /status, /where."]);
    // Updates are handled in the order sent: the other bot's command was done with before Ben's answer went.
    assert.equal(textsTo(CHATS.anna).length, 1, "the other bot's command got no answer from careflow");
  });

  it("a command whose answer fails says so, in German", async () => {
    link.answerCommand("health", () => Promise.reject(new Error("the store is away")));
    chat.sendText(CHATS.anna, "/health", ANNA);
    await eventually("the answer", () => textsTo(CHATS.anna).length === 1);
    assert.deepEqual(textsTo(CHATS.anna), ["Das hat leider nicht geklappt. Bitte versuchen Sie es gleich noch einmal."]);
  });
});
