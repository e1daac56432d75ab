/**
 * Issue 45: a run's steps in sentences a caregiver reads first, one kind of step at a time,
 * with channels by their names for people and each warning said once.
 */
import assert from "node:assert/strict";
import { duration, stepSentence, type SentenceContext, type SentenceStep } from "../../../../../../runtime/care/core/pipeline/runs/step-sentences";
import type { StepRecord } from "../../../../../../runtime/care/core/pipeline/engine/run-state";
import { wouldSay } from "../../../../../../runtime/care/surfaces/rehearsal/would-say";

const record = (over: Partial<StepRecord> = {}): StepRecord => ({
  step_id: 1,
  label: "step",
  step_type: "notification",
  started_at: "2026-06-01T05:00:00.000Z",
  elapsed_ms: 3.2,
  success: true,
  status: "success",
  output_ports: ["main"],
  ...over,
});
// Berlin in summer is UTC+2: 05:00Z is 07:00 at home.
const ctx = (over: Partial<SentenceContext> = {}): SentenceContext => ({ data: {}, timezone: "Europe/Berlin", senior: "Rose", ended: true, ...over });
const say = (step: Partial<SentenceStep> & { step_type: string }, c: SentenceContext = ctx()) => stepSentence({ label: "x", config: {}, ...step }, c);

describe("a run's steps in sentences", () => {
  describe("notification", () => {
    it("says where it went, at what time at home, and what it said", () => {
      const rec = record({
        trace: { message: "Time for your medicine" },
        receipts: [{ channel: "chat_app", delivered: true, detail: "Anna: delivered" }],
      });
      assert.equal(say({ step_type: "notification", record: rec }), "Sent to the family chat at 07:00: “Time for your medicine”");
    });

    it("names each channel for people, the ones that could not say why, and no machine id", () => {
      const rec = record({
        trace: { message: "Lunch" },
        warning: "not delivered by every channel (Tablet popup: no tablet has the care app open)",
        receipts: [
          { channel: "chat_app", delivered: true },
          { channel: "hub_speaker_tts", delivered: true },
          { channel: "pwa_popup_text", delivered: false, detail: "no tablet has the care app open" },
        ],
      });
      const s = say({ step_type: "notification", record: rec });
      assert.equal(s, "Sent to the family chat and the speaker at 07:00: “Lunch”; the tablet popup could not (no tablet has the care app open)");
      assert.doesNotMatch(s, /pwa_|chat_app|needs a look/, "the warning is the receipts, said once");
    });

    it("says a fallback route carried it instead, naming what could not", () => {
      const rec = record({
        trace: { message: "Rose is not up yet" },
        receipts: [
          { channel: "chat_app", delivered: false, detail: "Anna: the bot token was refused (401)" },
          { channel: "hub_notify", delivered: true, detail: "sent to notify.family", fallback: true },
        ],
      });
      assert.equal(
        say({ step_type: "notification", record: rec }),
        "Sent to the hub notification instead at 07:00: “Rose is not up yet”; the family chat could not (Anna: the bot token was refused (401))",
      );
    });

    it("says so when it reached nobody, and when nothing was sent at all", () => {
      const nobody = record({ trace: { message: "Help" }, receipts: [{ channel: "eink", delivered: false, detail: "no e-ink display to show it on" }] });
      assert.equal(
        say({ step_type: "notification", record: nobody }),
        "Tried to send at 07:00: “Help”, but it reached nobody: the e-ink display could not (no e-ink display to show it on)",
      );
      assert.equal(say({ step_type: "notification", record: record() }), "Not sent: an earlier step said no notification was needed");
      assert.match(say({ step_type: "notification", record: record({ receipts: [] }) }), /^Sent to nobody at 07:00: no channel was set up/);
    });
  });

  describe("wait and interactive prompt", () => {
    it("words a wait done and one under way", () => {
      assert.equal(say({ step_type: "wait", config: { duration_minutes: 5 }, record: record({ step_type: "wait" }) }), "Waited 5 min");
      const waiting = record({ step_type: "wait", status: "waiting" });
      assert.equal(
        say({ step_type: "wait", config: { duration_minutes: 90 }, record: waiting }, ctx({ ended: false, resume_at: "2026-06-01T06:30:00.000Z" })),
        "Waiting 1 h 30 min, until 08:30",
      );
    });

    it("says what Rose was asked and what she answered, by tap, by voice or not at all", () => {
      const config = {
        popup_message_template: "Did you take your pills?",
        countdown_seconds: 300,
        dismiss_button_text: "Yes",
        escalate_button_text: "I need help",
      };
      const asked = (answer: Record<string, unknown>) =>
        say({ step_type: "interactive_prompt", config, record: record({ step_type: "interactive_prompt" }) }, ctx({ data: { interactive_response: answer } }));
      assert.equal(asked({ channel: "pwa_popup_text", action: "dismiss" }), "Asked Rose “Did you take your pills?” and waited up to 5 min: Rose tapped “Yes”");
      assert.equal(
        asked({ channel: "pwa_realtime_ai", action: "escalate" }),
        "Asked Rose “Did you take your pills?” and waited up to 5 min: Rose answered by voice, “I need help”",
      );
      assert.equal(
        asked({ channel: "timeout", action: "escalate" }),
        "Asked Rose “Did you take your pills?” and waited 5 min: no answer, so it counted as “I need help”",
      );
      const open = say({ step_type: "interactive_prompt", config, record: record({ status: "waiting" }) }, ctx({ ended: false }));
      assert.equal(open, "Asked Rose “Did you take your pills?”: waiting up to 5 min for an answer");
    });
  });

  describe("condition and verification", () => {
    it("says the condition and which way it went", () => {
      const c = { expression: "not verification.verified" };
      assert.equal(say({ step_type: "condition", config: c, record: record({ output_ports: ["true"] }) }), "Checked “not verification.verified”: yes");
      assert.equal(say({ step_type: "condition", config: c, record: record({ output_ports: ["false"] }) }), "Checked “not verification.verified”: no");
    });

    it("says what the activity log was searched for and whether it was found", () => {
      const config = { conditions: [{ activity_type: "took_medication" }, { activity_type: "fall", completed: false }], match_mode: "all" };
      const s = say({ step_type: "verification", config, record: record() }, ctx({ data: { verification: { verified: false, match_mode: "all" } } }));
      assert.equal(s, "Looked in the activity log for took medication and no fall: not found");
    });
  });

  describe("any step", () => {
    it("a failure, a step not reached, and another type's warning added once", () => {
      assert.equal(say({ step_type: "condition", record: record({ status: "failed", error: "unknown name 'x'" }) }), "Condition failed: unknown name 'x'");
      assert.equal(say({ step_type: "wait" }), "Wait: not reached in this run");
      assert.equal(say({ step_type: "wait" }, ctx({ ended: false })), "Wait: not reached yet");
      const card = record({ step_type: "info_card", warning: "reached no channel: pwa: no tablet has the care app open" });
      assert.equal(
        say({ step_type: "info_card", record: card }),
        "Show an info card: done; needs a look: reached no channel: pwa: no tablet has the care app open",
      );
    });

    it("words durations as a person says them", () => {
      assert.deepEqual([duration(45), duration(300), duration(3600), duration(5400)], ["45 s", "5 min", "1 h", "1 h 30 min"]);
    });
  });
});

describe("a rehearsed run's would-be effects in words", () => {
  it("names the channel for people, not its id", () => {
    assert.equal(
      wouldSay({ kind: "notification", target: "chat_app", text: "Someone at the door: postman" }),
      "would send to the family chat: “Someone at the door: postman”",
    );
    assert.equal(wouldSay({ kind: "notification", target: "pwa_popup_text", text: "Hi" }), "would send to the tablet popup: “Hi”");
    assert.equal(wouldSay({ kind: "hub_call", target: "light.turn_on", text: "light.hall" }), "would ask the home hub to light turn on (light.hall)");
  });
});
