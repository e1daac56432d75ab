/**
 * What a send's receipts add up to: no warning when every channel delivered, "not delivered by
 * every channel" for some, "reached nobody" for none, "reached no channel" with no receipt, and
 * for a send carried by the fallback the route that carried it and what failed.
 */
import assert from "node:assert/strict";
import { deliveredByChannel, deliveryWarning, NO_CHANNEL_WARNING } from "../../../nodes/_kit/receipts";

const names = { chat_app: "Family chat", hub_notify: "Hub notification", webhook: "Webhook", pwa_popup_text: "Tablet popup" };
const chat401 = { channel: "chat_app", delivered: false, detail: "Anna: the bot token was refused (401)" };

describe("delivery receipts", () => {
  it("say nothing when every channel delivered, and what failed otherwise", () => {
    assert.equal(deliveryWarning([{ channel: "chat_app", delivered: true }], names), undefined);
    assert.equal(deliveryWarning([], names), NO_CHANNEL_WARNING);
    assert.equal(
      deliveryWarning([chat401, { channel: "pwa_popup_text", delivered: true }], names),
      "not delivered by every channel (Family chat: Anna: the bot token was refused (401))",
    );
    assert.equal(deliveryWarning([chat401], names), "reached nobody (Family chat: Anna: the bot token was refused (401))");
  });

  it("name the fallback route that carried it and everything that failed before", () => {
    const receipts = [
      chat401,
      { channel: "hub_notify", delivered: false, detail: "the hub refused notify.family", fallback: true },
      { channel: "webhook", delivered: true, detail: "200", fallback: true },
    ];
    assert.equal(
      deliveryWarning(receipts, names),
      "sent through Webhook instead, because every other channel failed (Family chat: Anna: the bot token was refused (401); Hub notification: the hub refused notify.family)",
    );
    assert.deepEqual(deliveredByChannel(receipts), { chat_app: false, hub_notify: false, webhook: true });
  });

  it("say plainly when the fallback failed too", () => {
    const receipts = [chat401, { channel: "webhook", delivered: false, detail: "answered 500", fallback: true }];
    assert.equal(
      deliveryWarning(receipts, names),
      "reached nobody (Family chat: Anna: the bot token was refused (401)); the fallback failed too (Webhook: answered 500)",
    );
  });
});
