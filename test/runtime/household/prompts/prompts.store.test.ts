/**
 * The prompt store on its own, on both stores: which prompts a tablet that connects is shown
 * (open ones, oldest first), which ones the countdown has closed (to the second), the first
 * outcome winning, and retention deleting only prompts that have an outcome.
 */
import assert from "node:assert/strict";
import type { Knex } from "knex";
import {
  claimOutcome,
  expiredUnanswered,
  findPrompt,
  isAnswerChannel,
  openPrompts,
  prunePromptsBefore,
  savePrompt,
  type NewPrompt,
} from "../../../../runtime/household/prompts/prompts.store";
import { openStore } from "../../../../runtime/platform/db/store";
import { migratedDatabase } from "../../../support/test-db";

const T0 = Date.parse("2026-11-22T08:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

describe("the prompt store", function () {
  this.timeout(30_000);
  let db: Knex;
  let drop: () => Promise<void>;

  before(async () => {
    const fresh = await migratedDatabase();
    const store = await openStore(fresh.databaseUrl, fresh.dataDir);
    db = store.db;
    drop = async () => {
      await store.close();
      await fresh.drop();
    };
  });
  after(() => drop());
  beforeEach(() => db("interactive_prompts").delete());

  /** A prompt of run `execution_id`, step 1, put at `created` with a countdown to `expires`. */
  const prompt = (execution_id: number, created: number, expires: number, over: Partial<NewPrompt> = {}): NewPrompt => ({
    execution_id,
    step_id: 1,
    rule_id: 3,
    message: `Are you okay? (${execution_id})`,
    output_key: "interactive_response",
    timeout_action: "escalate",
    auto_escalate: true,
    expires_at: iso(expires),
    created_at: iso(created),
    title: "Question for You",
    popup_message: "Are you okay?",
    voice_prompt: null,
    voice_instruction: null,
    escalate_button_text: "I need help",
    dismiss_button_text: "I'm okay",
    ...over,
  });
  const save = async (p: NewPrompt) => {
    await savePrompt(db, p);
    return (await findPrompt(db, p.execution_id, p.step_id))!;
  };
  const answer = (id: number, at: number) => claimOutcome(db, id, { answered_at: iso(at), channel: "pwa_popup_text", action: "dismiss" });

  it("reads a prompt back as it was put, auto_escalate a boolean on both stores", async () => {
    const put = prompt(1, T0, T0 + 30_000);
    const row = await save(put);
    assert.deepEqual({ ...row, id: undefined }, { ...put, id: undefined, answered_at: null, channel: null, action: null });
    assert.equal((await save(prompt(2, T0, T0 + 30_000, { auto_escalate: false }))).auto_escalate, false);
    assert.equal(await findPrompt(db, 1, 2), undefined, "another step of the run has none");
  });

  it("shows a connecting tablet the open prompts, oldest first: not an answered one, not one whose countdown has run out", async () => {
    await save(prompt(1, T0 + 2000, T0 + 60_000));
    await save(prompt(2, T0 + 1000, T0 + 60_000));
    await save(prompt(3, T0 + 1000, T0 + 60_000));
    await answer((await save(prompt(4, T0, T0 + 60_000))).id, T0 + 3000);
    await save(prompt(5, T0, T0 + 10_000)); // runs out at 10 s
    const open = async (now: number) => (await openPrompts(db, iso(now))).map((p) => p.execution_id);
    assert.deepEqual(await open(T0 + 9_999), [5, 2, 3, 1], "by the time it was put, then the order it was recorded in");
    assert.deepEqual(await open(T0 + 10_000), [2, 3, 1], "a countdown running out at this very moment is over");
  });

  it("closes by the countdown the unanswered prompts of that run only, once their time has come", async () => {
    await save(prompt(1, T0, T0 + 10_000));
    await save(prompt(1, T0, T0 + 5_000, { step_id: 2 }));
    await answer((await save(prompt(1, T0, T0 + 5_000, { step_id: 3 }))).id, T0 + 1000);
    await save(prompt(2, T0, T0 + 5_000));
    const expired = async (now: number) => (await expiredUnanswered(db, 1, iso(now))).map((p) => p.step_id).sort();
    assert.deepEqual(await expired(T0 + 4_999), []);
    assert.deepEqual(await expired(T0 + 5_000), [2], "at its expiry, not a millisecond later");
    assert.deepEqual(await expired(T0 + 10_000), [1, 2]);
  });

  it("keeps the first outcome: a second claim changes nothing", async () => {
    const p = await save(prompt(1, T0, T0 + 30_000));
    assert.equal(await answer(p.id, T0 + 1000), true);
    assert.equal(await claimOutcome(db, p.id, { answered_at: iso(T0 + 2000), channel: "timeout", action: "escalate" }), false);
    const row = (await findPrompt(db, 1, 1))!;
    assert.deepEqual([row.answered_at, row.channel, row.action], [iso(T0 + 1000), "pwa_popup_text", "dismiss"]);
  });

  it("retention deletes prompts answered before the cutoff, at most `limit` at a time; an open one stays however old", async () => {
    await answer((await save(prompt(1, T0, T0 + 30_000))).id, T0 + 1000);
    await answer((await save(prompt(2, T0, T0 + 30_000))).id, T0 + 2000);
    await answer((await save(prompt(3, T0, T0 + 30_000))).id, T0 + 9000);
    await save(prompt(4, T0 - 86_400_000, T0 - 86_000_000)); // never answered, long expired
    const left = async () => (await db("interactive_prompts").select("execution_id").orderBy("execution_id")).map((r) => r.execution_id as number);
    assert.equal(await prunePromptsBefore(db, iso(T0 + 9000), 1), 1);
    assert.equal((await left()).length, 3);
    assert.equal(await prunePromptsBefore(db, iso(T0 + 9000), 10), 1);
    assert.deepEqual(await left(), [3, 4], "answered at the cutoff, and the open one, stay");
  });

  it("tells a person's answer from the countdown's", () => {
    assert.deepEqual((["pwa_popup_text", "pwa_realtime_ai", "timeout", null] as const).map(isAnswerChannel), [true, true, false, false]);
  });
});
