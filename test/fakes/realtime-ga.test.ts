import assert from "node:assert/strict";
import WebSocket from "ws";
import { buildSettings } from "../../runtime/platform/config/load-settings";
import { RealtimeConnection, type RealtimeEvent } from "../../runtime/care/services/llm/realtime-client";
import { eventually } from "../support/eventually";
import type { RealtimeNames } from "./realtime-ga";
import { startFakeRealtime, type FakeRealtime } from "./realtime-server";

// The fake realtime model speaks the beta API or GA's; careflow's client must be taken by both.

/** The session.update the voice companion sends (voice-session.ts), in its beta shape. */
const COMPANION_SESSION = {
  instructions: "You are Rose's voice companion.",
  voice: "verse",
  modalities: ["audio", "text"],
  input_audio_format: "pcm16",
  output_audio_format: "pcm16",
  input_audio_transcription: { model: "whisper-1" },
  turn_detection: { type: "server_vad", silence_duration_ms: 600 },
  tools: [{ type: "function", name: "get_rooms", description: "The rooms", parameters: { type: "object", properties: {} } }],
  tool_choice: "auto",
};

/** A bare WebSocket client keeping every server event, for the names on the wire. */
async function rawClient(
  fake: FakeRealtime,
): Promise<{ ws: WebSocket; events: any[]; send(e: object): void; next(type: string, from?: number): Promise<any> }> {
  const ws = new WebSocket(`${fake.url}?model=gpt-realtime`);
  const events: any[] = [];
  ws.on("message", (d) => events.push(JSON.parse(String(d))));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const next = (type: string, from = 0) => eventually(`a ${type} event`, () => events.slice(from).find((e) => e.type === type));
  await next("session.created");
  return { ws, events, send: (e) => ws.send(JSON.stringify(e)), next };
}

describe("fake realtime model: beta and GA names", () => {
  let fake: FakeRealtime;
  afterEach(() => fake?.close());

  for (const names of ["beta", "ga"] as RealtimeNames[]) {
    it(`careflow's realtime client is taken by a ${names} server: its session is accepted and the answer's audio and words reach it under beta names`, async () => {
      fake = await startFakeRealtime({ names, script: [{ on: "response", say: "Good morning Rose." }] });
      const settings = buildSettings({ llm: { realtime: { url: fake.url, model: "gpt-realtime" } } }).llm.realtime!;
      const opened = await RealtimeConnection.open(settings);
      assert.ok(opened.ok, opened.ok ? "" : opened.reason);
      const conn = opened.connection;
      try {
        assert.equal(conn.ga, names === "ga");
        const heard: RealtimeEvent[] = [];
        conn.onEvent((e) => heard.push(e));
        conn.send({ type: "session.update", session: COMPANION_SESSION });
        conn.send({ type: "conversation.item.create", item: { type: "message", role: "system", content: [{ type: "input_text", text: "Greet Rose." }] } });
        conn.send({ type: "response.create" });
        await eventually("response.done", () => heard.find((e) => e.type === "response.done"));

        const session = fake.sessions[0];
        assert.deepEqual(session.errors, [], "the server refused nothing careflow sent");
        assert.equal(session.names, names);
        assert.equal(session.config.voice, "verse");
        assert.equal(session.config.turn_detection?.silence_duration_ms, 600);
        assert.deepEqual(session.config.input_audio_transcription, { model: "whisper-1" });
        assert.deepEqual(
          session.config.tools.map((t) => t.name),
          ["get_rooms"],
        );
        assert.ok(heard.some((e) => e.type === "response.audio.delta"));
        assert.equal(heard.find((e) => e.type === "response.audio_transcript.done")?.transcript, "Good morning Rose.");
        const sent = fake.received.find((r) => r.event.type === "session.update")!.event;
        if (names === "ga") assert.equal((sent.session as { type?: string }).type, "realtime");
        else assert.deepEqual(sent.session, COMPANION_SESSION);
      } finally {
        conn.close("test over");
      }
    });
  }

  it("GA: the session in GA's shape, GA's event names on the wire, beta's refused", async () => {
    fake = await startFakeRealtime({ names: "ga", script: [{ on: "speech", say: "Hello there." }] });
    const c = await rawClient(fake);
    try {
      const created = c.events[0].session;
      assert.equal(created.type, "realtime");
      assert.deepEqual(created.output_modalities, ["audio"]);
      assert.deepEqual(created.audio.output.format, { type: "audio/pcm", rate: 24000 });
      assert.equal(created.modalities, undefined);

      // beta's flat session, or no session type, is refused as GA refuses it.
      c.send({ type: "session.update", session: { type: "realtime", modalities: ["audio", "text"] } });
      assert.equal((await c.next("error")).error.code, "unknown_parameter");
      let from = c.events.length;
      c.send({ type: "session.update", session: { instructions: "hi" } });
      assert.deepEqual((await c.next("error", from)).error.param, "session.type");
      from = c.events.length;
      c.send({ type: "session.update", session: { type: "realtime", audio: { output: { format: { type: "audio/pcmu" } } } } });
      assert.equal((await c.next("error", from)).error.param, "session.audio.output.format.type");

      from = c.events.length;
      c.send({
        type: "session.update",
        session: { type: "realtime", audio: { output: { voice: "marin" }, input: { turn_detection: { type: "server_vad", silence_duration_ms: 300 } } } },
      });
      const updated = await c.next("session.updated", from);
      assert.equal(updated.session.audio.output.voice, "marin");
      assert.equal(updated.session.audio.input.turn_detection.silence_duration_ms, 300);

      from = c.events.length;
      c.send({ type: "response.create", response: { modalities: ["text"] } });
      assert.equal((await c.next("error", from)).error.param, "response.modalities");

      from = c.events.length;
      c.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] } });
      const added = await c.next("conversation.item.added", from);
      assert.equal((await c.next("conversation.item.done", from)).item.id, added.item.id);
      c.send({ type: "response.create" });
      await c.next("response.done", from);
      const types = c.events.slice(from).map((e) => e.type);
      for (const ga of [
        "response.output_audio.delta",
        "response.output_audio.done",
        "response.output_audio_transcript.delta",
        "response.output_audio_transcript.done",
      ])
        assert.ok(types.includes(ga), `${ga} in ${types.join(", ")}`);
      for (const beta of [
        "conversation.item.created",
        "response.audio.delta",
        "response.audio.done",
        "response.audio_transcript.delta",
        "response.audio_transcript.done",
      ])
        assert.ok(!types.includes(beta), `no ${beta}`);
      const part = c.events.slice(from).find((e) => e.type === "response.content_part.done").part;
      assert.deepEqual(part, { type: "output_audio", transcript: "Hello there." });
      assert.equal(c.events.slice(from).find((e) => e.type === "response.done").response.output[0].content[0].type, "output_audio");
      assert.equal(fake.sessions[0].errors.length, 4);
    } finally {
      c.ws.terminate();
    }
  });

  it("GA with text output: response.output_text names", async () => {
    fake = await startFakeRealtime({ names: "ga", script: [{ on: "response", say: "Just text." }] });
    const c = await rawClient(fake);
    try {
      c.send({ type: "session.update", session: { type: "realtime", output_modalities: ["text"] } });
      await c.next("session.updated");
      c.send({ type: "response.create" });
      await c.next("response.done");
      const types = c.events.map((e) => e.type);
      assert.ok(types.includes("response.output_text.delta") && types.includes("response.output_text.done"), types.join(", "));
      assert.ok(!types.some((t) => t.startsWith("response.text.") || t.includes("audio")), types.join(", "));
    } finally {
      c.ws.terminate();
    }
  });
});
