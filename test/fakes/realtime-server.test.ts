import assert from "node:assert/strict";
import WebSocket from "ws";
import { pcm16Silence, pcm16Tone, startFakeRealtime, type FakeRealtime, type FakeRealtimeOptions } from "./realtime-server";

/** A bare client of the Realtime API: every server event kept; `next` takes the first matching one, waiting for it. */
class Client {
  readonly events: any[] = [];
  /** Every event ever received, in order (`events` loses what `next` took). */
  readonly all: any[] = [];
  private wake: () => void = () => {};
  readonly closed: Promise<number>;
  private nextId = 1;
  constructor(readonly ws: WebSocket) {
    ws.on("message", (d) => {
      const e = JSON.parse(String(d));
      this.events.push(e);
      this.all.push(e);
      this.wake();
    });
    this.closed = new Promise((resolve) => ws.once("close", (code) => resolve(code)));
  }
  static async open(fake: FakeRealtime, headers: Record<string, string> = {}): Promise<Client> {
    const c = new Client(new WebSocket(`${fake.url}?model=gpt-4o-realtime-preview`, { headers: { "OpenAI-Beta": "realtime=v1", ...headers } }));
    await c.next((e) => e.type === "session.created");
    return c;
  }
  /** Sends an event with a fresh event_id (returned), or raw text. */
  send(event: Record<string, unknown> | string): string {
    const id = `evt_client_${this.nextId++}`;
    this.ws.send(typeof event === "string" ? event : JSON.stringify({ event_id: id, ...event }));
    return id;
  }
  append(pcm: Buffer): void {
    this.send({ type: "input_audio_buffer.append", audio: pcm.toString("base64") });
  }
  /** The first event not yet taken that matches, waiting for it. */
  async next(match: (e: any) => boolean, timeoutMs = 3000): Promise<any> {
    return this.events.splice(await this.indexOf(match, timeoutMs), 1)[0];
  }
  /** Every event not yet taken up to and including the first matching one. */
  async until(match: (e: any) => boolean, timeoutMs = 3000): Promise<any[]> {
    return this.events.splice(0, (await this.indexOf(match, timeoutMs)) + 1);
  }
  private async indexOf(match: (e: any) => boolean, timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const i = this.events.findIndex(match);
      if (i >= 0) return i;
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no such event; have ${this.events.map((e) => e.type).join(", ")}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => (clearTimeout(timer), resolve());
      });
    }
  }
}

const decodedBytes = (events: any[], type: string) => events.filter((e) => e.type === type).reduce((n, e) => n + Buffer.from(e.delta, "base64").length, 0);
/** 60 ms of 24 kHz pcm16 per character. */
const bytesFor = (text: string) => text.length * 60 * 24 * 2;

describe("fake realtime model", () => {
  let fake: FakeRealtime;
  const clients: Client[] = [];
  const start = async (options: FakeRealtimeOptions = {}) => {
    fake = await startFakeRealtime(options);
    return fake;
  };
  const open = async (headers?: Record<string, string>) => {
    const c = await Client.open(fake, headers);
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    clients.splice(0).forEach((c) => c.ws.terminate());
    await fake?.close();
  });

  it("sends session.created with the API's default session and the model asked for", async () => {
    await start();
    const c = new Client(new WebSocket(`${fake.url}?model=my-model`));
    clients.push(c);
    const created = await c.next(() => true);
    assert.equal(created.type, "session.created");
    assert.match(created.event_id, /^event_/);
    assert.match(created.session.id, /^sess_/);
    assert.deepEqual(
      { ...created.session, id: undefined },
      {
        id: undefined,
        object: "realtime.session",
        model: "my-model",
        modalities: ["text", "audio"],
        voice: "alloy",
        instructions: "",
        input_audio_format: "pcm16",
        output_audio_format: "pcm16",
        input_audio_transcription: null,
        turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
        tools: [],
        tool_choice: "auto",
        temperature: 0.8,
        max_response_output_tokens: "inf",
      },
    );
    assert.equal(fake.sessions[0].model, "my-model");
    assert.equal(fake.sessions[0].open, true);
  });

  it("refuses a wrong or missing API key with a 401 and a JSON error, and accepts the right one", async () => {
    await start({ apiKey: "sk-test" });
    for (const headers of [{ Authorization: "Bearer wrong" }, {}]) {
      const ws = new WebSocket(`${fake.url}?model=m`, { headers });
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        ws.on("unexpected-response", (_req, res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        ws.on("open", () => reject(new Error("upgraded")));
        ws.on("error", reject);
      });
      assert.equal(status, 401);
      assert.equal(JSON.parse(body).error.code, "invalid_api_key");
    }
    const ok = await open({ Authorization: "Bearer sk-test" });
    assert.equal(fake.sessions.length, 1);
    assert.equal(fake.sessions[0].openaiBeta, "realtime=v1");
    ok.ws.close();
  });

  it("merges session.update and answers session.updated with the whole session; refuses unknown fields", async () => {
    await start();
    const c = await open();
    const tool = { type: "function", name: "get_person_locations", description: "Where everyone is", parameters: { type: "object", properties: {} } };
    c.send({ type: "session.update", session: { instructions: "You are Rose's helper.", tools: [tool], voice: "verse" } });
    const updated = await c.next((e) => e.type === "session.updated");
    assert.deepEqual(updated.session.tools, [tool]);
    assert.equal(updated.session.instructions, "You are Rose's helper.");
    assert.equal(updated.session.voice, "verse");
    assert.equal(updated.session.input_audio_format, "pcm16");
    assert.deepEqual(fake.sessions[0].config.tools, [tool]);

    const id = c.send({ type: "session.update", session: { audio: { input: {} } } });
    const err = await c.next((e) => e.type === "error");
    assert.deepEqual(err.error, {
      type: "invalid_request_error",
      code: "unknown_parameter",
      message: "Unknown parameter: 'session.audio'.",
      param: "session.audio",
      event_id: id,
    });
    assert.equal(fake.sessions[0].config.voice, "verse");
  });

  it("server VAD: a tone then 600 ms of silence is heard, transcribed and answered with audio of 60 ms a character", async () => {
    const say = "Grandma is in the kitchen.";
    await start({ script: [{ transcript: "where is grandma", say }] });
    const c = await open();
    const audio = Buffer.concat([pcm16Tone(400), pcm16Silence(600)]);
    // In 100 ms appends, as a bridge streams it, so the VAD works across appends.
    for (let at = 0; at < audio.length; at += 4800) c.append(audio.subarray(at, at + 4800));

    const started = await c.next((e) => e.type === "input_audio_buffer.speech_started");
    assert.equal(started.audio_start_ms, 0);
    const stopped = await c.next((e) => e.type === "input_audio_buffer.speech_stopped");
    assert.equal(stopped.audio_end_ms, 900, "400 ms of tone and 500 ms of silence");
    assert.equal(stopped.item_id, started.item_id);
    const committed = await c.next((e) => e.type === "input_audio_buffer.committed");
    assert.deepEqual([committed.item_id, committed.previous_item_id], [started.item_id, null]);
    const created = await c.next((e) => e.type === "conversation.item.created");
    assert.deepEqual([created.item.id, created.item.role, created.item.content[0].type], [started.item_id, "user", "input_audio"]);
    const heard = await c.next((e) => e.type === "conversation.item.input_audio_transcription.completed");
    assert.deepEqual([heard.item_id, heard.content_index, heard.transcript], [started.item_id, 0, "where is grandma"]);

    const response = await c.until((e) => e.type === "response.done");
    assert.deepEqual(
      response.map((e) => e.type).filter((t) => !t.endsWith(".delta")),
      [
        "response.created",
        "response.output_item.added",
        "response.content_part.added",
        "response.audio.done",
        "response.audio_transcript.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.done",
      ],
    );
    const words = response.filter((e) => e.type === "response.audio_transcript.delta").map((e) => e.delta);
    assert.equal(words.length, 5);
    assert.equal(words.join(""), say);
    assert.equal(decodedBytes(response, "response.audio.delta"), bytesFor(say));
    // Interleaved: the last word comes after some audio, not all transcript first.
    const types = response.map((e) => e.type);
    assert.ok(types.lastIndexOf("response.audio_transcript.delta") > types.indexOf("response.audio.delta"));
    const done = response.at(-1);
    assert.equal(done.response.status, "completed");
    assert.equal(done.response.output[0].content[0].transcript, say);
    assert.equal(fake.received.filter((r) => r.event.type === "input_audio_buffer.append").length, 10);
    assert.equal(fake.received[0].event.bytes, 4800);
    assert.equal(fake.script.length, 0);
  });

  it("a scripted function call: the call, then after its output and response.create the words with the output", async () => {
    await start({
      script: [
        {
          transcript: "where is everyone",
          calls: [{ name: "get_person_locations", arguments: { person: "all" } }],
          say: "Here they are: {{output:get_person_locations}}.",
        },
      ],
    });
    const c = await open();
    c.append(Buffer.concat([pcm16Tone(300), pcm16Silence(600)]));
    const first = await c.until((e) => e.type === "response.done");
    const added = first.find((e) => e.type === "response.output_item.added");
    assert.deepEqual(
      { ...added.item, id: undefined, call_id: undefined },
      {
        id: undefined,
        object: "realtime.item",
        type: "function_call",
        status: "in_progress",
        name: "get_person_locations",
        call_id: undefined,
        arguments: "",
      },
    );
    const deltas = first.filter((e) => e.type === "response.function_call_arguments.delta");
    assert.ok(deltas.length >= 2);
    assert.equal(deltas.map((d) => d.delta).join(""), '{"person":"all"}');
    const argsDone = first.find((e) => e.type === "response.function_call_arguments.done");
    assert.deepEqual([argsDone.call_id, argsDone.name, argsDone.arguments], [added.item.call_id, "get_person_locations", '{"person":"all"}']);
    const itemDone = first.find((e) => e.type === "response.output_item.done");
    assert.deepEqual([itemDone.item.status, itemDone.item.arguments], ["completed", '{"person":"all"}']);
    assert.equal(first.at(-1).response.status, "completed");
    assert.ok(!first.some((e) => e.type === "response.audio.delta"));

    const bad = c.send({ type: "conversation.item.create", item: { type: "function_call_output", call_id: "call_nope", output: "{}" } });
    assert.deepEqual((await c.next((e) => e.type === "error")).error.event_id, bad);

    const output = "Rose is in the kitchen";
    c.send({ type: "conversation.item.create", item: { type: "function_call_output", call_id: added.item.call_id, output } });
    const created = await c.next((e) => e.type === "conversation.item.created");
    assert.deepEqual([created.item.type, created.item.call_id, created.item.output], ["function_call_output", added.item.call_id, output]);
    assert.match(created.item.id, /^item_/);
    await fake.waitFor((e) => e.type === "conversation.item.create" && (e.item as any).call_id === added.item.call_id);
    c.send({ type: "response.create" });
    const second = await c.until((e) => e.type === "response.done");
    const transcript = second.find((e) => e.type === "response.audio_transcript.done").transcript;
    assert.equal(transcript, `Here they are: ${output}.`);
    assert.equal(decodedBytes(second, "response.audio.delta"), bytesFor(transcript));
    assert.deepEqual(fake.sessions[0].functionOutputs, { get_person_locations: [output] });
  });

  it("response.cancel ends the response at once with status cancelled and no more deltas", async () => {
    // A long answer (60 s of audio), so the cancel lands mid-stream.
    await start({ script: [{ on: "response", say: "word ".repeat(200).trim() }] });
    const c = await open();
    c.send({ type: "response.create" });
    const firstAudio = await c.next((e) => e.type === "response.audio.delta");
    c.send({ type: "response.cancel" });
    const done = await c.next((e) => e.type === "response.done");
    assert.equal(done.response.status, "cancelled");
    assert.deepEqual(done.response.status_details, { type: "cancelled", reason: "client_cancelled" });
    assert.equal(done.response.id, firstAudio.response_id);
    assert.equal(done.response.output[0].status, "incomplete");
    const sent = c.all.filter((e) => e.type === "response.audio.delta").length;
    assert.ok(sent < 1200, `all ${sent} chunks were sent before the cancel landed`);
    // Another event round trip: nothing of the cancelled response follows its response.done.
    c.send({ type: "input_audio_buffer.clear" });
    await c.next((e) => e.type === "input_audio_buffer.cleared");
    assert.equal(
      c.all.indexOf(done),
      c.all.findLastIndex((e) => e.response_id === done.response.id || e.response?.id === done.response.id),
    );
    c.send({ type: "response.cancel" });
    assert.equal((await c.next((e) => e.type === "error")).error.code, "response_cancel_not_active");
  });

  it("speech over a response stops it (turn_detected), as the API's interrupt_response; the bridge may truncate the item", async () => {
    await start({
      script: [
        { on: "response", say: "word ".repeat(200).trim() },
        { transcript: "stop", say: "OK." },
      ],
    });
    const c = await open();
    c.send({ type: "response.create" });
    const firstAudio = await c.next((e) => e.type === "response.audio.delta");
    c.append(pcm16Tone(200));
    await c.next((e) => e.type === "input_audio_buffer.speech_started");
    const done = await c.next((e) => e.type === "response.done");
    assert.deepEqual([done.response.id, done.response.status, done.response.status_details.reason], [firstAudio.response_id, "cancelled", "turn_detected"]);
    c.send({ type: "conversation.item.truncate", item_id: firstAudio.item_id, content_index: 0, audio_end_ms: 120 });
    const truncated = await c.next((e) => e.type === "conversation.item.truncated");
    assert.deepEqual([truncated.item_id, truncated.audio_end_ms], [firstAudio.item_id, 120]);
    c.append(pcm16Silence(500));
    assert.equal((await c.next((e) => e.type === "conversation.item.input_audio_transcription.completed")).transcript, "stop");
    assert.equal((await c.next((e) => e.type === "response.audio_transcript.done")).transcript, "OK.");
  });

  it("a second response.create while one is in progress is an error; the first goes on", async () => {
    await start();
    const c = await open();
    c.send({ type: "response.create" });
    const second = c.send({ type: "response.create" });
    const err = await c.next((e) => e.type === "error");
    assert.equal(err.error.code, "conversation_already_has_active_response");
    assert.equal(err.error.event_id, second);
    const done = await c.next((e) => e.type === "response.done");
    assert.equal(done.response.status, "completed");
    assert.equal(done.response.output[0].content[0].transcript, "Hello.");
    assert.equal(c.all.filter((e) => e.type === "response.created").length, 1);
  });

  it("turn_detection null: nothing happens until commit; then the item and transcription; the answer on response.create", async () => {
    await start({ script: [{ transcript: "turn on the light", say: "Done." }] });
    const c = await open();
    c.send({ type: "session.update", session: { turn_detection: null } });
    assert.equal((await c.next((e) => e.type === "session.updated")).session.turn_detection, null);
    c.send({ type: "input_audio_buffer.commit" });
    assert.equal((await c.next((e) => e.type === "error")).error.code, "input_audio_buffer_commit_empty");
    c.append(Buffer.concat([pcm16Tone(300), pcm16Silence(700)]));
    c.send({ type: "input_audio_buffer.commit" });
    const committed = await c.next((e) => e.type === "input_audio_buffer.committed");
    const heard = await c.next((e) => e.type === "conversation.item.input_audio_transcription.completed");
    assert.equal(heard.item_id, committed.item_id);
    assert.equal(heard.transcript, "turn on the light");
    // A round trip: a response started by the commit would have been sent before this answer.
    c.send({ type: "session.update", session: { instructions: "" } });
    await c.next((e) => e.type === "session.updated");
    assert.ok(!c.all.some((e) => e.type.startsWith("input_audio_buffer.speech_") || e.type.startsWith("response.")));
    c.send({ type: "response.create" });
    const done = await c.next((e) => e.type === "response.done");
    assert.equal(done.response.output[0].content[0].transcript, "Done.");
    c.append(pcm16Tone(100));
    c.send({ type: "input_audio_buffer.clear" });
    await c.next((e) => e.type === "input_audio_buffer.cleared");
  });

  it("a user text message then response.create plays a speech turn; without a script the default turns answer", async () => {
    await start({ script: [{ say: "You typed to me." }] });
    const c = await open();
    c.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] } });
    const created = await c.next((e) => e.type === "conversation.item.created");
    assert.deepEqual(created.item.content, [{ type: "input_text", text: "hi" }]);
    c.send({ type: "response.create", response: { modalities: ["text"] } });
    const text = await c.until((e) => e.type === "response.done");
    assert.equal(text.find((e) => e.type === "response.text.done").text, "You typed to me.");
    assert.ok(!text.some((e) => e.type.startsWith("response.audio")));

    c.append(Buffer.concat([pcm16Tone(200), pcm16Silence(500)]));
    assert.equal((await c.next((e) => e.type === "conversation.item.input_audio_transcription.completed")).transcript, "(speech)");
    assert.equal((await c.next((e) => e.type === "response.audio_transcript.done")).transcript, "I heard you.");
    await c.next((e) => e.type === "response.done");
    c.send({ type: "response.create" });
    assert.equal((await c.next((e) => e.type === "response.audio_transcript.done")).transcript, "Hello.");
  });

  it("answers invalid JSON and unknown events with an error event and stays open", async () => {
    await start();
    const c = await open();
    c.send("{not json");
    const err = await c.next((e) => e.type === "error");
    assert.equal(err.error.type, "invalid_request_error");
    assert.equal(err.error.code, "invalid_json");
    const id = c.send({ type: "conversation.frobnicate" });
    assert.deepEqual((await c.next((e) => e.type === "error")).error.event_id, id);
    c.send({ type: "input_audio_buffer.append" });
    assert.equal((await c.next((e) => e.type === "error")).error.code, "missing_required_parameter");
    c.send({ type: "session.update", session: { instructions: "still here" } });
    assert.equal((await c.next((e) => e.type === "session.updated")).session.instructions, "still here");
    assert.deepEqual(
      fake.received.map((r) => r.event.type),
      ["(invalid JSON)", "conversation.frobnicate", "input_audio_buffer.append", "session.update"],
    );
    assert.equal(new Set(c.all.map((e) => e.event_id)).size, c.all.length, "every server event has its own event_id");
  });

  it("waitFor finds past and future events; closeAll drops every connection with 1012", async () => {
    await start();
    const a = await open();
    const b = await open();
    a.send({ type: "session.update", session: { voice: "ash" } });
    await a.next((e) => e.type === "session.updated");
    assert.equal((await fake.waitFor((e) => e.type === "session.update")).type, "session.update");
    const later = fake.waitFor((e, session) => e.type === "response.create" && session === fake.sessions[1].id);
    b.send({ type: "response.create" });
    assert.equal((await later).type, "response.create");
    await assert.rejects(
      fake.waitFor((e) => e.type === "never", 20),
      /no such client event/,
    );
    fake.closeAll();
    assert.deepEqual(await Promise.all([a.closed, b.closed]), [1012, 1012]);
    // The server side sees the close a moment after the client does.
    while (fake.sessions.some((s) => s.open)) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(
      fake.sessions.map((s) => [s.open, s.closeCode]),
      [
        [false, 1012],
        [false, 1012],
      ],
    );
  });
});
