/**
 * The notification form's preview (issue 49): the step's message with careflow's fixed words
 * around it, for each receiver, in their language and from the catalogs: the senior's tablet
 * popup and e-ink card in hers, each family chat the level reaches in the chat's own.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../runtime/platform/core/clock";
import { translate } from "../../../runtime/platform/i18n/catalogs";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";

type Json = Record<string, any>;

describe("edit form: how a notification reads for each receiver, in their language", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    // 07:30 in Berlin.
    t = await startTestApp({
      nodeRed: true,
      clock: new ManualClock(Date.parse("2026-11-24T06:30:00Z")),
      settings: {
        app: { timezone: "Europe/Berlin", language: "en" },
        notifications: {
          chat_app: {
            targets: [
              { name: "Anna", chat_id: 1001, alert_levels: [], language: "de" },
              { name: "Ben", chat_id: 1002, alert_levels: ["emergency"] },
            ],
          },
        },
      },
    });
    await t.post("/api/v1/persons", { display_name: "Rose", language: "hi" });
  });
  after(() => t.close());

  const audience = async (config: Json, bearer: string = KEYS.caregiver): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.baseUrl}/editor/careflow/notification-audience`, {
      method: "POST",
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      body: JSON.stringify({ config }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it("a warning: the German relative's chat buttons and note in German, the senior's popup and card in Hindi, Ben (emergencies only) not at all", async () => {
    const res = await audience({
      alert_level: "warning",
      channels: ["pwa_popup_text", "chat_app", "eink", "hub_speaker_tts"],
      message_template: "Rose is still in the bathroom",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const previews = res.body.previews as Json[];
    assert.deepEqual(
      previews.map((p) => [p.channel, p.receiver, p.language]),
      [
        ["pwa_popup_text", "Rose's tablet", "hi"],
        ["chat_app", "Anna (family chat)", "de"],
        ["eink", "e-ink display", "hi"],
      ],
      "the speaker adds no words of its own; Ben gets no warnings",
    );
    const [popup, anna, card] = previews;
    assert.deepEqual(popup, {
      receiver: "Rose's tablet",
      channel: "pwa_popup_text",
      language: "hi",
      language_name: "हिन्दी",
      heading: translate("hi", "popup.level.warning"),
      message: "Rose is still in the bathroom",
      buttons: [translate("hi", "popup.ok")],
      note: null,
      note_when: null,
    });
    assert.equal(anna.language_name, "Deutsch");
    assert.deepEqual(anna.buttons, ["Ich kümmere mich", "Erledigt"]);
    assert.equal(anna.note, "🏃 Anna kümmert sich, 07:30");
    assert.equal(anna.heading, null);
    assert.equal(card.heading, "कृपया देखें");
    assert.match(card.note, /मंगलवार/, "the card's time in Hindi words (Tuesday)");
  });

  it("a channel's own template wins over the message; no message is the run's own; an info chat message has no buttons; an emergency reaches Ben in English", async () => {
    const info = await audience({ alert_level: "info", channels: ["chat_app", "pwa_popup_text"], chat_app_template: "Nur zur Info" });
    assert.equal(info.status, 200);
    const [anna, popup] = info.body.previews as Json[];
    assert.equal(anna.message, "Nur zur Info");
    assert.deepEqual(anna.buttons, []);
    assert.equal(anna.note, null);
    assert.equal(popup.message, null, "the popup says the run's message");

    const emergency = await audience({ alert_level: "emergency", channels: ["chat_app"] });
    const ben = (emergency.body.previews as Json[]).find((p) => p.receiver === "Ben (family chat)")!;
    assert.equal(ben.language, "en");
    assert.deepEqual(ben.buttons, ["I'm on it", "Resolved"]);
  });

  it("refuses a message that is not text, naming the field", async () => {
    const res = await audience({ alert_level: "warning", message_template: 5 });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /^config\.message_template: /);
  });
});
