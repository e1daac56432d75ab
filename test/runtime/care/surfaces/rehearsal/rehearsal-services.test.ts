/**
 * The services a rehearsed run is given, one by one (issue 50: "rehearsal sends nothing" must be
 * proven for every way a rule acts, not only for one notification): each that acts on the world
 * keeps what it would have done, in the caregiver's words, and never reaches the real service,
 * whose every method here throws; each outside service is asked only when the rehearsal may call
 * them, and a model step gets the recorded run's answer when there is one.
 */
import assert from "node:assert/strict";
import type { CareContext } from "../../../../../runtime/care/core/context";
import { currentRun, rehearsalServices, type RehearsalServiceOptions } from "../../../../../runtime/care/surfaces/rehearsal/rehearsal-services";
import { EffectLog } from "../../../../../runtime/care/surfaces/rehearsal/would-send";
import { wouldSay } from "../../../../../runtime/care/surfaces/rehearsal/would-say";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { fakeServices, type FakeParts } from "../../../../nodes/fake-services";
import { stepInput } from "../../../../nodes/handler-context";

const T = Date.parse("2026-11-30T07:00:00Z");
const signal = new AbortController().signal;
const NOT_ASKED = /^not rehearsed: no recorded answer/;

describe("rehearsal: the services a rehearsed run acts through", () => {
  let clock: ManualClock;
  let effects: EffectLog;
  /** What reached the real services (only those a test gives; the rest throw). */
  let reached: string[];

  const rehearsal = (opts: Partial<RehearsalServiceOptions> = {}, parts: FakeParts = {}) => {
    const scratch = { clock } as unknown as CareContext;
    return rehearsalServices(scratch, fakeServices(parts), {
      effects,
      recordedRunOf: async () => null,
      recordedPromptAnswer: async () => null,
      answering: new Set(),
      callModels: false,
      ...opts,
    });
  };
  /** The would-be effects without their time stamp. */
  const sends = () => effects.sends.map(({ at: _at, ...s }) => s);
  const inRun = <T>(fn: () => Promise<T>) => currentRun.run({ execution_id: 7 }, fn);

  beforeEach(() => {
    clock = new ManualClock(T);
    effects = new EffectLog(() => clock.now());
    reached = [];
  });

  it("keeps what the tablet would have been shown and told, and tells the run it went out", async () => {
    const s = rehearsal();
    await inRun(async () => {
      assert.equal(s.webapp.broadcast({ type: "info_card", message: "Lunch is ready" } as never), 1);
      assert.equal(s.webapp.broadcast({ type: "interactive_prompt", message: "Did you eat?" } as never), 1, "a prompt is listed once, as the prompt");
      s.webapp.broadcast({ type: "tracking", message: { person: "rose" } } as never);
      assert.deepEqual(await s.webapp.announce({ text: "Time for tea", mode: "file" }, signal), { ok: true, value: { mode: "file", clients: 1, bytes: 0 } });
      const talk = await s.webapp.converse({ reason: "notification", text: null, instruction: "Ask how she slept" }, signal);
      assert.deepEqual(talk, { ok: true, value: { session_id: "rehearsal", model: "rehearsal", clients: 1, joined: false } });
      await s.webapp.converse({ reason: "api", text: null, instruction: null }, signal);
    });
    assert.deepEqual(sends(), [
      { execution_id: 7, kind: "webapp", target: "info_card", text: "Lunch is ready", said: "would show on the tablet: “Lunch is ready”" },
      { execution_id: 7, kind: "webapp", target: "tracking", text: "", said: "would show on the tablet" },
      { execution_id: 7, kind: "speech", target: "web_app", text: "Time for tea", said: "would say aloud: “Time for tea”" },
      { execution_id: 7, kind: "speech", target: "voice_companion", text: "Ask how she slept", said: "would say aloud: “Ask how she slept”" },
      { execution_id: 7, kind: "speech", target: "voice_companion", text: "", said: "would say aloud" },
    ]);
  });

  it("keeps the hub's calls and speech, the chat's messages and the e-ink card, none sent", async () => {
    const s = rehearsal();
    await inRun(async () => {
      assert.deepEqual(await s.hub.call({ domain: "light", service: "turn_on", entity_id: "light.hall" } as never, signal), {
        ok: true,
        value: { response: null },
      });
      await s.hub.call({ domain: "scene", service: "turn_on" } as never, signal);
      const spoke = await s.hub.speak({ text: "Door open", media_player: "media_player.kitchen", room_name: null }, signal);
      assert.deepEqual(spoke, { ok: true, value: { media_player: "media_player.kitchen", url: "" } });
      assert.deepEqual(await s.hub.speak({ text: "Hello", media_player: null, room_name: "Hall" }, signal), {
        ok: true,
        value: { media_player: "rehearsal", url: "" },
      });
      await s.hub.speak({ text: "Hi", media_player: null, room_name: null }, signal);
      const chat = await s.chat.send(
        {
          targets: [
            { name: "Anna", chat_id: 1 },
            { name: "Ben", chat_id: 2 },
          ] as never,
          text: "Rose is up",
          photo: null,
          max_image_side: 1024,
          alert_level: "warning",
          alert_id: null,
          escalation: 0,
        },
        signal,
      );
      assert.deepEqual(chat, {
        ok: true,
        value: [
          { target: "Anna", delivered: true, detail: "rehearsal: would send" },
          { target: "Ben", delivered: true, detail: "rehearsal: would send" },
        ],
      });
      assert.deepEqual(await s.eink.render({ text: "Pills at 8", sensor_ids: ["hall_display"], expires_in_minutes: 30 }), {
        sensor_ids: ["hall_display"],
        expires_at: new Date(T + 30 * 60_000).toISOString(),
      });
      assert.deepEqual(await s.eink.render({}), { sensor_ids: [], expires_at: new Date(T + 60 * 60_000).toISOString() }, "an hour unless told");
      await s.eink.render({ text: "Hi", sensor_ids: ["hall", "bedroom"] });
    });
    assert.deepEqual(
      sends().map((e) => [e.kind, e.target, e.text, e.said, e.alert_level]),
      [
        ["hub_call", "light.turn_on", "light.hall", "would ask the home hub to light turn on (light.hall)", undefined],
        ["hub_call", "scene.turn_on", "", "would ask the home hub to scene turn on", undefined],
        ["speech", "media_player.kitchen", "Door open", "would say aloud: “Door open”", undefined],
        ["speech", "Hall", "Hello", "would say aloud: “Hello”", undefined],
        ["speech", "hub speaker", "Hi", "would say aloud: “Hi”", undefined],
        ["chat", "Anna, Ben", "Rose is up", "would write in the family chat (Anna, Ben): “Rose is up”", "warning"],
        ["eink", "hall_display", "Pills at 8", "would show on the e-ink display: “Pills at 8”", undefined],
        ["eink", "all displays", "", "would show on the e-ink display", undefined],
        ["eink", "hall,bedroom", "Hi", "would show on the e-ink display: “Hi”", undefined],
      ],
    );
    assert.ok(
      effects.sends.every((e) => e.execution_id === 7 && e.at === new Date(T).toISOString()),
      "each is the run's, at the rehearsal's time",
    );
  });

  it("keeps a card and a quiz, and starts no quiz (it needs the senior's answers)", async () => {
    const s = rehearsal();
    const card = await s.knowledge.deliverCard(
      {
        card_id: 4,
        channels: ["pwa", "eink"] as never,
        eink_targets: [],
        eink_expiry_minutes: 60,
        voice_instruction: null,
        rule_id: 1,
        execution_id: 9,
        step_id: 2,
      },
      signal,
    );
    assert.deepEqual(card, {
      delivery_id: 0,
      card_title: "card 4",
      receipts: [
        { channel: "pwa", delivered: true, detail: "rehearsal: would show" },
        { channel: "eink", delivered: true, detail: "rehearsal: would show" },
      ],
    });
    const quiz = await s.knowledge.startQuiz(
      {
        quiz_id: 5,
        senior_id: "rose",
        dedupe_minutes: 0,
        timeout_minutes: 10,
        voice_instruction: null,
        rule_id: 1,
        execution_id: 9,
        step_id: 3,
      },
      signal,
    );
    assert.deepEqual(quiz, {
      started: false,
      reason: "not rehearsed: a quiz needs the senior's answers",
      previous_session_id: 0,
      previous_started_at: new Date(T).toISOString(),
    });
    assert.deepEqual(
      sends().map((e) => [e.execution_id, e.kind, e.target, e.said]),
      [
        [9, "card", "pwa,eink", "would show card 4"],
        [9, "quiz", "quiz", "would start quiz 5"],
      ],
    );
  });

  it("records a prompt as asked, stores it in the scratch home, and gives it no answer when the recorded run had none", async () => {
    const s = rehearsal({}, { prompts: { record: async (p) => void reached.push(`prompt ${p.step_id}`) } });
    await s.prompts.record({ execution_id: 3, step_id: 8, message: "Did you take your pills?", popup_message: "" } as never);
    await s.prompts.record({ execution_id: 3, step_id: 9, message: "long", popup_message: "Pills?" } as never);
    assert.deepEqual(reached, ["prompt 8", "prompt 9"], "the scratch home's own store");
    assert.deepEqual(
      sends().map((e) => [e.execution_id, e.kind, e.target, e.said]),
      [
        [3, "prompt", "interactive_prompt", "would ask the senior: “Did you take your pills?”"],
        [3, "prompt", "interactive_prompt", "would ask the senior: “Pills?”"],
      ],
    );
    assert.equal(clock.pendingTimers(), 0, "no answer is scheduled");
  });

  it("does not ask an outside service unless allowed, and says so; allowed, asks it", async () => {
    const answer = { ok: true as const, value: "real" };
    const asked = {
      scene: { analyze: async () => (reached.push("scene"), answer) },
      identity: { identify: async () => (reached.push("identity"), answer) },
      memory: {
        roomTrend: async () => (reached.push("roomTrend"), answer),
        snapshots: async () => (reached.push("snapshots"), answer),
        recentObjects: async () => (reached.push("recentObjects"), answer),
        searchObservations: async () => (reached.push("searchObservations"), answer),
      },
    } as unknown as FakeParts;
    const ask = async (s: ReturnType<typeof rehearsal>) =>
      inRun(async () => [
        await s.scene.analyze(new Uint8Array(), { run_detect: true, run_describe: false, run_embed: false, run_hazards: false }, signal),
        await s.identity.identify({ media_paths: [], sensor_id: null, room_name: null, include_annotated_image: false, include_motion: false }, signal),
        await s.memory.roomTrend("1", signal),
        await s.memory.snapshots("1", 24, signal),
        await s.memory.recentObjects("1", 30, signal),
        await s.memory.searchObservations({ query: "keys" } as never, signal),
      ]);

    const refused = await ask(rehearsal({ callModels: false }, asked));
    assert.deepEqual(reached, [], "nothing asked");
    for (const a of refused) assert.ok(!a.ok && NOT_ASKED.test(a.reason), JSON.stringify(a));
    assert.deepEqual(
      effects.notRehearsed.map((n) => [n.execution_id, n.service]),
      [
        [7, "scene_analysis"],
        [7, "person_identification"],
        [7, "semantic_memory"],
        [7, "semantic_memory"],
        [7, "semantic_memory"],
        [7, "semantic_memory"],
      ],
    );
    assert.ok(effects.notRehearsed.every((n) => NOT_ASKED.test(n.reason)));

    const allowed = await ask(rehearsal({ callModels: true }, asked));
    assert.deepEqual(reached, ["scene", "identity", "roomTrend", "snapshots", "recentObjects", "searchObservations"]);
    assert.ok(allowed.every((a) => a.ok && (a.value as unknown) === "real"));
    assert.equal(effects.notRehearsed.length, 6, "none more said");
  });

  it("gives a model step the recorded run's answer; without one, asks the model only when allowed", async () => {
    const config = { output_key: "mood" } as never;
    const input = { ...stepInput({}), execution_id: 11 };
    const recordedRunOf = async (id: number) => (id === 11 ? { id: 4, pipeline_data: { mood: "cheerful" } } : null);
    const model = { models: { runStep: async () => (reached.push("model"), { success: true, data: { mood: "asked" } }) } } as FakeParts;

    assert.deepEqual(await rehearsal({ recordedRunOf }, model).models.runStep(input, config, signal), { success: true, data: { mood: "cheerful" } });
    assert.deepEqual(
      effects.replayed.map((r) => [r.execution_id, r.service, r.from_execution_id]),
      [[11, "llm", 4]],
    );

    const other = await rehearsal({ recordedRunOf: async () => ({ id: 4, pipeline_data: { weather: "rain" } }) }, model).models.runStep(input, config, signal);
    assert.equal(other.success, false, "the recorded run has no answer under this key");
    assert.match(String(other.error), NOT_ASKED);
    assert.deepEqual(other.data, { mood: null });
    assert.deepEqual(
      effects.notRehearsed.map((n) => [n.execution_id, n.service]),
      [[11, "llm"]],
    );
    assert.deepEqual(reached, [], "the model was not asked");

    assert.deepEqual(await rehearsal({ callModels: true }, model).models.runStep(input, config, signal), { success: true, data: { mood: "asked" } });
    assert.deepEqual(reached, ["model"]);
  });

  it("keeps an effect made outside any run's handler without a run", async () => {
    rehearsal().webapp.broadcast({ type: "info_card", message: "Hello" } as never);
    assert.deepEqual(
      sends().map((e) => [e.execution_id, e.target]),
      [[null, "info_card"]],
    );
  });

  it("words every kind of effect for the Rehearse tab", () => {
    const say = (kind: string, target: string, text: string) => wouldSay({ kind, target, text });
    assert.equal(say("notification", "chat_app", " Rose fell "), "would send to the family chat: “Rose fell”");
    assert.equal(say("prompt", "interactive_prompt", "Pills?"), "would ask the senior: “Pills?”");
    assert.equal(say("prompt", "interactive_prompt", "  "), "would ask the senior", "no empty quotes");
    assert.equal(say("webapp", "info_card", "Hi"), "would show on the tablet: “Hi”");
    assert.equal(say("speech", "web_app", "Hi"), "would say aloud: “Hi”");
    assert.equal(say("eink", "hall", "Hi"), "would show on the e-ink display: “Hi”");
    assert.equal(say("chat", "Anna", "Hi"), "would write in the family chat (Anna): “Hi”");
    assert.equal(say("hub_call", "media_player.volume_set", ""), "would ask the home hub to media player volume set");
    assert.equal(say("card", "pwa", "card 4"), "would show card 4");
    assert.equal(say("quiz", "quiz", "quiz 5"), "would start quiz 5");
    assert.equal(say("something new", "x", "Hi"), "would send: “Hi”");
  });
});
