import assert from "node:assert/strict";
import type { Knex } from "knex";
import { handler } from "../../../../nodes/steps/interactive_prompt/interactive_prompt.handler";
import { spec } from "../../../../nodes/steps/interactive_prompt/interactive_prompt.node";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { openStore } from "../../../../runtime/platform/db/store";
import { savePrompt } from "../../../../runtime/household/prompts/prompts.store";
import type { WebAppFrame } from "../../../../runtime/platform/ws/webapp-hub";
import type { ConverseRequest } from "../../../../vocabulary/voice";
import { migratedDatabase } from "../../../support/test-db";
import { configOf } from "../../filters/_support/tracking-db";
import { handlerContext, stepInput } from "../../handler-context";

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("interactive_prompt step handler", () => {
  let db: Knex;
  let drop: () => Promise<void>;
  let frames: WebAppFrame[];
  let realtime: boolean;
  let conversations: ConverseRequest[];
  let announced: string[];

  before(async function () {
    this.timeout(30_000);
    const fresh = await migratedDatabase();
    const store = await openStore(fresh.databaseUrl, fresh.dataDir);
    db = store.db;
    drop = async () => {
      await store.close();
      await fresh.drop();
    };
  });
  after(() => drop());
  beforeEach(async () => {
    frames = [];
    realtime = false;
    conversations = [];
    announced = [];
    await db("interactive_prompts").delete();
  });

  const run = (config: Record<string, unknown>, data: Record<string, unknown> = {}) => {
    const ctx = handlerContext(
      {
        prompts: { record: (prompt) => savePrompt(db, prompt) },
        webapp: {
          broadcast: (f) => (frames.push(f), 1),
          realtimeConfigured: () => realtime,
          converse: async (r) => (conversations.push(r), { ok: true, value: { session_id: "voice-1", model: "m", clients: 1, joined: false } }),
          announce: async (r) => (announced.push(r.text), { ok: true, value: { mode: "stream", clients: 1, bytes: 10 } }),
        },
      },
      new ManualClock(NOW),
    );
    return handler(
      ctx,
      { ...stepInput(data, "interactive_prompt"), execution_id: 7, rule_id: 3, step: { id: 42, label: "ask", step_type: "interactive_prompt" } },
      configOf(spec, config),
    );
  };

  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]> = [
    [
      "defaults",
      {},
      {},
      { message: "Are you okay?", title: "Question for You", escalate_button_text: "I need help", dismiss_button_text: "I'm okay", countdown_seconds: 30 },
    ],
    [
      "renders the popup and voice templates against pipeline_data",
      {
        popup_message_template: "In the {{room_name}} for {{minutes}} min. Okay?",
        voice_prompt_template: "Hello {{name}}",
        voice_instruction: "Speak slowly to {{name}}",
        countdown_seconds: 60,
      },
      { room_name: "bathroom", minutes: 25, name: "Rose" },
      { message: "In the bathroom for 25 min. Okay?", countdown_seconds: 60, voice_prompt: "Hello Rose", voice_instruction: "Speak slowly to Rose" },
    ],
    [
      "voice only: no popup message",
      { popup_message_template: "", voice_prompt_template: "Are you alright?" },
      {},
      { message: "", voice_prompt: "Are you alright?" },
    ],
    ["a popup message rendering to nothing still asks", { popup_message_template: "{{missing}}" }, {}, { message: "Are you okay?" }],
  ];
  for (const [name, config, data, expected] of cases) {
    it(name, async () => {
      const r = await run(config, data);
      assert.equal(frames.length, 1);
      const frame = frames[0];
      assert.equal(frame.type, "interactive_prompt");
      assert.equal(frame.execution_id, 7);
      assert.equal(frame.step_id, 42);
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(frame[k], v, k);
      if (!("voice_prompt" in expected)) assert.ok(!("voice_prompt" in frame), "voice_prompt only when set");
      if (!("voice_instruction" in expected)) assert.ok(!("voice_instruction" in frame));
      assert.equal(r.wait_until, NOW + Number(frame.countdown_seconds) * 1000);
      assert.equal(frame.countdown_total_seconds, frame.countdown_seconds, "sent as it is asked: the whole countdown is left");
      assert.equal(frame.expires_at, new Date(r.wait_until!).toISOString());
    });
  }

  it("returns the timeout outcome at output_key and records the prompt before broadcasting", async () => {
    const r = await run({ countdown_seconds: 10, timeout_action: "dismiss", output_key: "check", auto_escalate: true });
    const expires = new Date(NOW + 10_000).toISOString();
    assert.deepEqual(r.on_timeout_data, { check: { channel: "timeout", action: "dismiss", timestamp: expires, raw_response: null } });
    assert.equal(r.data, undefined, "nothing is written to pipeline_data until the outcome");
    const row = await db("interactive_prompts").where({ execution_id: 7, step_id: 42 }).first();
    assert.equal(row.rule_id, 3);
    assert.equal(row.message, "Are you okay?");
    assert.equal(row.output_key, "check");
    assert.equal(row.timeout_action, "dismiss");
    assert.equal(Boolean(row.auto_escalate), true);
    assert.equal(row.expires_at, expires);
    assert.equal(row.answered_at, null);
    // What the frame shows, for a web app that connects while it is open.
    assert.deepEqual(
      [row.title, row.popup_message, row.escalate_button_text, row.dismiss_button_text, row.voice_prompt, row.voice_instruction],
      ["Question for You", "Are you okay?", "I need help", "I'm okay", null, null],
    );
  });

  it("records the voice prompt and instruction and the step's own texts", async () => {
    await run(
      {
        popup_message_template: "",
        voice_prompt_template: "Hello {{name}}, are you alright?",
        voice_instruction: "Speak slowly",
        popup_title: "Rose",
        escalate_button_text: "Help",
        dismiss_button_text: "Fine",
      },
      { name: "Rose" },
    );
    const row = await db("interactive_prompts").where({ execution_id: 7, step_id: 42 }).first();
    assert.deepEqual(
      [row.message, row.title, row.popup_message, row.escalate_button_text, row.dismiss_button_text, row.voice_prompt, row.voice_instruction],
      ["Hello Rose, are you alright?", "Rose", "", "Help", "Fine", "Hello Rose, are you alright?", "Speak slowly"],
    );
  });

  it("a step prompting again in the same run starts a fresh, unanswered prompt", async () => {
    await run({});
    await db("interactive_prompts").update({ answered_at: new Date(NOW).toISOString(), channel: "pwa_popup_text", action: "dismiss" });
    await run({ popup_message_template: "Again?" });
    const rows = await db("interactive_prompts").select();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].message, "Again?");
    assert.equal(rows[0].answered_at, null);
  });

  it("the voice prompt is asked by the voice companion, scoped to this prompt, when a realtime model is configured", async () => {
    realtime = true;
    await run({ voice_prompt_template: "Hello {{name}}, are you alright?", voice_instruction: "Slowly", dismiss_button_text: "Fine" }, { name: "Rose" });
    assert.deepEqual(conversations, [
      {
        reason: "prompt",
        text: "Hello Rose, are you alright?",
        instruction: "Slowly",
        prompt: { execution_id: 7, step_id: 42, dismiss_text: "Fine", escalate_text: "I need help" },
      },
    ]);
    assert.deepEqual(announced, []);
  });

  it("without a realtime model the TTS voice says the voice prompt; without one, nothing is spoken", async () => {
    await run({ voice_prompt_template: "Are you alright?" });
    assert.deepEqual(announced, ["Are you alright?"]);
    assert.deepEqual(conversations, []);
    announced = [];
    await run({});
    assert.deepEqual(announced, []);
  });
});
