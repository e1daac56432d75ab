/**
 * The voice companion through the real app against the fake realtime model
 * (test/fakes/realtime-server.ts): a web app client on `/ws` hears the companion and sends
 * its microphone; a notification starts a conversation; a tool call runs through the voice
 * subset and a destructive one is refused; a prompt is answered by voice and the run
 * resumes; a prompt answered on screen ends the conversation; the idle limit on the app's
 * clock; what is said is stored and read back; and the fallback when the model is away.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { pcm16Silence, pcm16Tone, startFakeRealtime, type FakeRealtime } from "../../../../fakes/realtime-server";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";
import { makeDocument } from "../../services/knowledge/knowledge-support";

type Frame = Record<string, any>;

/** A web app on `/ws` keeping every JSON frame. */
class Tablet {
  readonly frames: Frame[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, binary) => {
      if (!binary) this.frames.push(JSON.parse(String(data)));
    });
  }
  static open(t: TestApp, key: string = KEYS.webapp): Promise<Tablet> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [key]);
      const tablet = new Tablet(ws);
      ws.once("open", () => resolve(tablet));
      ws.once("error", reject);
    });
  }
  async next(match: (f: Frame) => boolean, what: string, timeoutMs = 5000): Promise<Frame> {
    return eventually(`${what} (got ${JSON.stringify(this.frames.map((f) => f.subtype ?? f.type))})`, () => this.frames.find(match), timeoutMs);
  }
  send(frame: Frame): void {
    this.ws.send(JSON.stringify(frame));
  }
  /** The senior says something: 600 ms of voice and 800 ms of quiet, in 100 ms microphone chunks. */
  speak(sessionId: string): void {
    const pcm = Buffer.concat([pcm16Tone(600), pcm16Silence(800)]);
    for (let at = 0; at < pcm.length; at += 4800)
      this.send({ type: "voice_audio", session_id: sessionId, audio: pcm.subarray(at, at + 4800).toString("base64") });
  }
  close(): void {
    this.ws.close();
  }
}

describe("the voice companion (pwa_realtime_ai) against a fake realtime model", function () {
  this.timeout(30000);
  let fake: FakeRealtime;
  let t: TestApp;
  let clock: ManualClock;
  let tablet: Tablet;

  before(async () => {
    fake = await startFakeRealtime({ apiKey: "rt-secret" });
    clock = new ManualClock(Date.parse("2026-11-25T08:00:00Z"));
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: { llm: { realtime: { url: fake.url, model: "fake-realtime-1", voice: "verse", api_key: "rt-secret", idle_seconds: 30 } } },
    });
    tablet = await Tablet.open(t);
  });
  after(async () => {
    tablet?.close();
    await t?.close();
    await fake?.close();
  });
  afterEach(async () => {
    fake.setNames("beta");
    // Whatever a test left going ends before the next starts.
    const { active } = (await t.get("/api/v1/voice/sessions")).body;
    if (active) await t.request("DELETE", `/api/v1/voice/sessions/${active.session_id}`);
    tablet.frames.length = 0;
  });

  let seq = 0;
  async function runRule(steps: unknown[], edges: unknown[] = []): Promise<number> {
    const imported = await t.post("/api/v1/rules/import", { schema_version: 1, rule: { name: `Voice rule ${++seq}`, trigger_type: "manual" }, steps, edges });
    assert.equal(imported.status, 201, imported.text);
    const res = await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`);
    assert.equal(res.status, 201, res.text);
    return res.body.execution_id as number;
  }
  async function runIn(id: number, statuses: string[]): Promise<Frame> {
    return eventually(`run ${id} ${statuses.join("/")}`, async () => {
      const run = (await t.get(`/api/v1/workflows/${id}`)).body as Frame;
      return statuses.includes(run.status) ? run : undefined;
    });
  }
  const sessionStart = () => tablet.next((f) => f.type === "voice" && f.subtype === "session_start", "session_start");
  const sessionEnd = (id: string) => tablet.next((f) => f.type === "voice" && f.subtype === "session_end" && f.session_id === id, "session_end");

  it("a notification starts a conversation: the model is set up with the voice tools, says the message, and the tablet hears it", async () => {
    fake.setScript([{ on: "response", say: "Rose, it is time for your heart tablet." }]);
    const exec = await runRule([
      {
        label: "tell",
        step_type: "notification",
        schema_version: 1,
        config: { trigger_cooloff: false, alert_level: "reminder", channels: ["pwa_realtime_ai"], pwa_realtime_ai_template: "Time for the heart tablet." },
      },
    ]);
    const start = await sessionStart();
    assert.equal(start.sample_rate, 24000);
    assert.equal(start.reason, "notification");
    await tablet.next((f) => f.subtype === "transcript" && f.role === "assistant", "the companion's words");
    const audio = tablet.frames.filter((f) => f.subtype === "audio" && f.session_id === start.session_id);
    assert.ok(audio.length > 0, "audio reached the tablet");
    assert.ok(Buffer.from(audio[0].audio, "base64").length > 0);
    assert.equal(tablet.frames.find((f) => f.subtype === "transcript")!.text, "Rose, it is time for your heart tablet.");

    const session = fake.sessions.at(-1)!;
    assert.equal(session.model, "fake-realtime-1");
    const tools = (session.config.tools as Array<{ name: string }>).map((x) => x.name).sort();
    assert.deepEqual(tools, [
      "get_alerts",
      "get_enrolled_persons",
      "get_local_datetime",
      "get_person_activities",
      "get_person_locations",
      "get_room_occupancy",
      "get_rooms",
      "get_weather",
      "query_knowledge_base",
    ]);
    assert.equal(session.config.voice, "verse");
    assert.match(String(session.config.instructions), /voice companion/);
    const opening = fake.received.find((r) => r.session === session.id && r.event.type === "conversation.item.create");
    assert.match(JSON.stringify(opening?.event), /Time for the heart tablet\./);

    const run = await runIn(exec, ["completed"]);
    assert.equal(run.pipeline_data.notification_channels.pwa_realtime_ai, true);
    const detail = await t.get(`/api/v1/workflows/${exec}/detail`);
    assert.match(JSON.stringify(detail.body), /conversation started \(voice-[0-9a-f-]+, fake-realtime-1\) on 1 screen/);

    const turns = (await t.get(`/api/v1/voice/turns?session_id=${start.session_id}`)).body.turns;
    assert.deepEqual(
      turns.map((x: Frame) => [x.role, x.text, x.reason]),
      [["assistant", "Rose, it is time for your heart tablet.", "notification"]],
    );
  });

  // The model's server may speak the beta API or GA's (other event names, the session's audio
  // settings nested): the same conversation runs against both.
  for (const names of ["beta", "ga"] as const)
    it(`the senior asks; a voice tool runs server-side and its result goes to the model, never to the screen; a destructive tool is refused (${names} Realtime API)`, async () => {
      fake.setNames(names);
      fake.setScript([
        { on: "response", say: "Hello Rose, how can I help?" },
        { on: "speech", transcript: "What rooms are there?", calls: [{ name: "get_rooms" }], say: "There are these rooms: {{output:get_rooms}}" },
        {
          on: "speech",
          transcript: "Start the morning routine",
          calls: [{ name: "trigger_rule", arguments: { rule_id: 1 } }],
          say: "I am sorry, I cannot do that.",
        },
      ]);
      tablet.send({ type: "voice_start" });
      const start = await sessionStart();
      assert.equal(start.reason, "senior");
      await tablet.next((f) => f.subtype === "transcript" && f.text === "Hello Rose, how can I help?", "the greeting");

      tablet.speak(start.session_id);
      await tablet.next((f) => f.subtype === "transcript" && f.role === "user" && f.text === "What rooms are there?", "the senior's words");
      await tablet.next((f) => f.subtype === "transcript" && f.role === "assistant" && String(f.text).startsWith("There are these rooms"), "the answer");
      const rooms = JSON.parse(fake.sessions.at(-1)!.functionOutputs.get_rooms![0]);
      assert.ok(Array.isArray(rooms) || Array.isArray(rooms.items), `rooms: ${fake.sessions.at(-1)!.functionOutputs.get_rooms}`);

      tablet.speak(start.session_id);
      await tablet.next((f) => f.subtype === "transcript" && f.text === "I am sorry, I cannot do that.", "the refusal spoken");
      assert.deepEqual(JSON.parse(fake.sessions.at(-1)!.functionOutputs.trigger_rule![0]), { error: "trigger_rule is not available to the voice companion" });
      // Nothing of a tool's result reaches the screen: only the frames of speech (its words, as the model says them).
      for (const f of tablet.frames.filter((x) => x.type === "voice")) {
        assert.ok(["start_result", "session_start", "audio", "transcript", "interrupt"].includes(f.subtype), `frame ${f.subtype}`);
      }
      const calls = (await t.get("/api/v1/mcp/calls?caller=voice%20companion")).body;
      const byTool = new Map((calls.items ?? calls).map((c: Frame) => [c.tool, c]));
      assert.equal((byTool.get("get_rooms") as Frame).outcome, "ok");
      assert.equal((byTool.get("get_rooms") as Frame).transport, "voice");
      assert.equal((byTool.get("trigger_rule") as Frame).outcome, "refused");

      // What was said is kept, and the MCP tool reads it back.
      const history = await t.post("/api/v1/mcp/tools/get_conversation_history", { session_id: start.session_id, limit: 10 });
      assert.equal(history.status, 200, history.text);
      const said = (history.body.items ?? history.body).map((x: Frame) => `${x.role}: ${x.content}`);
      assert.deepEqual(said.slice(0, 3), [
        "assistant: Hello Rose, how can I help?",
        "user: What rooms are there?",
        `assistant: ${said[2].slice("assistant: ".length)}`,
      ]);
      assert.ok(said.includes("user: Start the morning routine"));

      // The server took everything the companion sent: its session (in this dialect's shape) and every event.
      const session = fake.sessions.at(-1)!;
      assert.equal(session.names, names);
      assert.deepEqual(session.errors, []);
      assert.equal(session.config.voice, "verse");
      assert.equal(session.config.turn_detection?.silence_duration_ms, 600);
      assert.ok(session.config.tools.some((x) => x.name === "get_rooms"));
    });

  it("the senior asks a question the family wrote down: the companion answers from the approved document through query_knowledge_base", async () => {
    await makeDocument(t, "Anna's visits", "Anna comes every Sunday at three in the afternoon. She brings the grandchildren, Mia and Leo.", "family", true);
    await makeDocument(t, "The heater", "The new heater has a red knob. Turn it right for warmer.", "home"); // not approved: never an answer
    fake.setScript([
      { on: "response", say: "Hello Rose." },
      {
        on: "speech",
        transcript: "When is Anna coming?",
        calls: [{ name: "query_knowledge_base", arguments: { query: "When is Anna coming?" } }],
        say: "{{output:query_knowledge_base}}",
      },
      {
        on: "speech",
        transcript: "How does the heater work?",
        calls: [{ name: "query_knowledge_base", arguments: { query: "How does the heater work?" } }],
        say: "I don't know.",
      },
    ]);
    tablet.send({ type: "voice_start" });
    const start = await sessionStart();
    await tablet.next((f) => f.subtype === "transcript" && f.text === "Hello Rose.", "the greeting");
    tablet.speak(start.session_id);
    await tablet.next((f) => f.subtype === "transcript" && f.role === "assistant" && String(f.text).includes("Sunday"), "the answer spoken");
    const answer = JSON.parse(fake.sessions.at(-1)!.functionOutputs.query_knowledge_base![0]);
    assert.equal(answer.found, true);
    assert.match(answer.answer, /every Sunday at three/);
    assert.equal(answer.source_document_ids.length, 1);

    tablet.speak(start.session_id);
    await tablet.next((f) => f.subtype === "transcript" && f.text === "I don't know.", "the second answer");
    const second = JSON.parse(fake.sessions.at(-1)!.functionOutputs.query_knowledge_base![1]);
    assert.equal(second.found, false, "an unapproved document does not answer");
    // Both questions are in the query log, asked through the voice companion.
    const queries = (await t.get("/api/v1/knowledge-interactions/queries")).body;
    const asked = (queries.items ?? queries).map((q: Frame) => [q.query_text, q.channel]);
    assert.deepEqual(asked.map((a: string[]) => a[0]).sort(), ["How does the heater work?", "When is Anna coming?"]);
    assert.deepEqual([...new Set(asked.map((a: string[]) => a[1]))], ["voice"]);
  });

  it("a prompt's voice prompt is asked by the companion; “I'm fine” answers it by voice, the run resumes and the conversation ends", async () => {
    fake.setScript([
      { on: "response", say: "Rose, are you alright?" },
      {
        on: "speech",
        transcript: "I'm fine, thank you",
        calls: [{ name: "respond_to_interactive_prompt", arguments: { action: "dismiss" } }],
        say: "Good. I will let you rest.",
      },
    ]);
    const exec = await runRule(
      [
        {
          label: "ask",
          step_type: "interactive_prompt",
          schema_version: 1,
          config: { voice_prompt_template: "Are you alright?", popup_message_template: "Are you alright?" },
        },
        { label: "okay?", step_type: "condition", schema_version: 1, config: { expression: "interactive_response.action == 'dismiss'" } },
      ],
      [{ source_label: "ask", source_port: "main", target_label: "okay?" }],
    );
    const start = await sessionStart();
    assert.equal(start.reason, "prompt");
    assert.equal(start.execution_id, exec);
    const session = fake.sessions.at(-1)!;
    const answerTool = (session.config.tools as Array<{ name: string; parameters: Frame }>).find((x) => x.name === "respond_to_interactive_prompt");
    assert.ok(answerTool, "the prompt's own answer tool is offered");
    assert.deepEqual(Object.keys(answerTool.parameters.properties), ["action"], "the run and step are the conversation's, not the model's");
    await tablet.next((f) => f.subtype === "transcript" && f.text === "Rose, are you alright?", "the question");

    tablet.speak(start.session_id);
    const run = await runIn(exec, ["completed"]);
    const answer = run.pipeline_data.interactive_response;
    assert.equal(answer.channel, "pwa_realtime_ai");
    assert.equal(answer.action, "dismiss");
    assert.equal(answer.raw_response.said, "I'm fine, thank you");
    await tablet.next((f) => f.type === "interactive_prompt_closed" && f.execution_id === exec, "the prompt closed on screen");
    await tablet.next((f) => f.subtype === "transcript" && f.text === "Good. I will let you rest.", "what happens next");
    const end = await sessionEnd(start.session_id);
    assert.equal(end.reason, "the prompt was answered by voice");
    const turns = (await t.get(`/api/v1/voice/turns?session_id=${start.session_id}`)).body.turns;
    assert.ok(turns.every((x: Frame) => x.execution_id === exec));
  });

  it("a prompt answered on the screen ends the conversation asking it", async () => {
    fake.setScript([{ on: "response", say: "Rose, did you take your tablets?" }]);
    const exec = await runRule([
      { label: "ask", step_type: "interactive_prompt", schema_version: 1, config: { voice_prompt_template: "Did you take your tablets?" } },
    ]);
    const start = await sessionStart();
    const prompt = await tablet.next((f) => f.type === "interactive_prompt" && f.execution_id === exec, "the prompt");
    tablet.send({ type: "interactive_response", execution_id: exec, step_id: prompt.step_id, action: "dismiss" });
    const end = await sessionEnd(start.session_id);
    assert.equal(end.reason, "the prompt was answered elsewhere (pwa_popup_text)");
    assert.equal((await runIn(exec, ["completed"])).pipeline_data.interactive_response.channel, "pwa_popup_text");
  });

  it("a conversation nobody speaks in ends after llm.realtime.idle_seconds on the app's clock", async () => {
    fake.setScript([{ on: "response", say: "Hello." }]);
    const started = await t.post("/api/v1/voice/sessions", { text: "Say hello." });
    assert.equal(started.status, 201, started.text);
    const id = started.body.session_id;
    await tablet.next((f) => f.subtype === "transcript" && f.text === "Hello.", "hello");
    // sleep-ok: the response's end reaches the app with no outward sign (no frame follows it); the
    // idle countdown starts from it, and the check after is positive (still active at 29 s).
    await new Promise((r) => setTimeout(r, 50));
    clock.advance(29_000);
    assert.equal((await t.get("/api/v1/voice/sessions")).body.active?.session_id, id);
    clock.advance(1_500);
    assert.equal((await sessionEnd(id)).reason, "nobody spoke for 30 s");
    const listed = (await t.get("/api/v1/voice/sessions")).body;
    assert.equal(listed.active, null);
    assert.equal(listed.recent[0].session_id, id);
  });

  it("a notification while a conversation goes on is said in it next, not in a second one", async () => {
    fake.setScript([
      { on: "response", say: "Good afternoon, Rose." },
      { on: "response", say: "Anna is at the door." },
    ]);
    const first = await t.post("/api/v1/voice/sessions", { text: "Say good afternoon." });
    assert.equal(first.status, 201, first.text);
    const sessions = fake.sessions.length;
    const exec = await runRule([
      {
        label: "tell",
        step_type: "notification",
        schema_version: 1,
        config: { trigger_cooloff: false, alert_level: "info", channels: ["pwa_realtime_ai"], message_template: "Anna is at the door." },
      },
    ]);
    await tablet.next((f) => f.subtype === "transcript" && f.text === "Anna is at the door.", "the second message, in the same conversation");
    assert.equal(fake.sessions.length, sessions, "no second connection to the model");
    assert.ok(tablet.frames.filter((f) => f.subtype === "transcript").every((f) => f.session_id === first.body.session_id));
    await runIn(exec, ["completed"]);
    assert.match(JSON.stringify((await t.get(`/api/v1/workflows/${exec}/detail`)).body), /added to the conversation going on \(voice-/);
  });

  it("when the model drops the connection mid-conversation, the tablet is told and the next one starts afresh", async () => {
    fake.setScript([{ on: "response", say: "Hello." }]);
    const started = await t.post("/api/v1/voice/sessions", {});
    assert.equal(started.status, 201, started.text);
    await tablet.next((f) => f.subtype === "transcript" && f.text === "Hello.", "hello");
    fake.closeAll();
    const end = await sessionEnd(started.body.session_id);
    assert.match(end.reason, /^the voice model closed the connection \(1012/);
    assert.equal((await t.get("/api/v1/voice/sessions")).body.active, null);
    const again = await t.post("/api/v1/voice/sessions", {});
    assert.equal(again.status, 201, again.text);
    assert.notEqual(again.body.session_id, started.body.session_id);
  });

  it("bad microphone frames get an error naming the field; a display key may not talk", async () => {
    tablet.send({ type: "voice_audio", session_id: "voice-x", audio: "not base64!" });
    assert.match((await tablet.next((f) => f.type === "error", "error")).detail, /^audio: base64/);
    const display = await Tablet.open(t, KEYS.display);
    display.send({ type: "voice_start" });
    const refused = await display.next((f) => f.type === "error", "refusal");
    assert.equal(refused.status, 403);
    display.close();
    assert.equal((await t.request("POST", "/api/v1/voice/sessions", { body: { text: 42 } })).status, 422);
  });

  it("a Hindi senior: the companion is told who it is and what to say in Hindi, with the order to speak Hindi", async () => {
    const kamala = await t.post("/api/v1/persons", { display_name: "Kamala", language: "hi" });
    assert.equal(kamala.status, 201, kamala.text);
    try {
      fake.setScript([{ on: "response", say: "कमला जी, चाय तैयार है।" }]);
      await runRule([
        {
          label: "tell",
          step_type: "notification",
          schema_version: 1,
          config: { trigger_cooloff: false, alert_level: "info", channels: ["pwa_realtime_ai"], message_template: "चाय तैयार है।" },
        },
      ]);
      await sessionStart();
      const session = fake.sessions.at(-1)!;
      const instructions = String(session.config.instructions);
      assert.match(instructions, /आवाज़ साथी/, instructions);
      assert.match(instructions, /उनसे हमेशा हिन्दी में बात कीजिए/);
      assert.doesNotMatch(instructions, /voice companion|Speak slowly/, "no English left in what it is told");
      const opening = await eventually("the opening message", () =>
        fake.received.find((r) => r.session === session.id && r.event.type === "conversation.item.create"),
      );
      assert.match(JSON.stringify(opening.event), /अभी उन्हें यह बात अपने शब्दों में बताइए: “चाय तैयार है।”/);
    } finally {
      await t.request("DELETE", `/api/v1/persons/${kamala.body.person_id}`);
    }
  });

  it("when the model cannot be reached, the notification falls back to the screen and the TTS voice, and the receipt says why", async () => {
    await fake.close();
    const exec = await runRule([
      {
        label: "tell",
        step_type: "notification",
        schema_version: 1,
        config: { trigger_cooloff: false, alert_level: "info", channels: ["pwa_realtime_ai"], message_template: "Lunch is ready." },
      },
    ]);
    await tablet.next((f) => f.type === "info" && f.message === "Lunch is ready.", "the popup");
    await runIn(exec, ["completed"]);
    const detail = JSON.stringify((await t.get(`/api/v1/workflows/${exec}/detail`)).body);
    assert.match(detail, /the voice model at 127\.0\.0\.1:\d+ could not be reached/);
    const started = await t.post("/api/v1/voice/sessions", {});
    assert.equal(started.status, 503);
    assert.match(started.body.detail, /^The voice companion cannot talk now: the voice model/);
  });

  it("with no web app connected, a notification is not delivered, and the receipt says that once", async () => {
    tablet.close();
    await eventually("the server to see the socket go", () => t.app.ctx.webapp.size === 0);
    const exec = await runRule([
      {
        label: "tell",
        step_type: "notification",
        schema_version: 1,
        config: { trigger_cooloff: false, alert_level: "info", channels: ["pwa_realtime_ai"], message_template: "Tea is ready." },
      },
    ]);
    await runIn(exec, ["completed", "failed"]);
    const detail = (await t.get(`/api/v1/workflows/${exec}/detail`)).body;
    const receipts = JSON.stringify(detail).match(/"detail":"[^"]*no tablet has the care app open[^"]*"/g) ?? [];
    assert.deepEqual(receipts, ['"detail":"no tablet has the care app open"']);
  });
});
