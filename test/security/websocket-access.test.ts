/**
 * `/ws` and `/ws/pipeline` as an attacker would try them: every kind of caller connecting,
 * every kind answering a prompt (the permission of the REST twin, `POST
 * /api/v1/interactive-responses`), one key opening sockets in a loop (it may fill only its own
 * share; nobody else is closed or kept out), and a client posing as the countdown.
 */
import assert from "node:assert/strict";
import { eventually } from "../support/eventually";
import WebSocket from "ws";
import { ManualClock } from "../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";

type Frame = Record<string, any>;
type Caller = keyof typeof KEYS | "none" | "wrong";

interface Socket {
  ws: WebSocket;
  frames: Frame[];
  closed: Promise<number>;
}

/** Opens a socket; resolves with it once open, or with the HTTP status it was refused with. */
function open(url: string, key: string | null): Promise<Socket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, key ? [key] : []);
    const frames: Frame[] = [];
    const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
    ws.on("message", (d) => frames.push(JSON.parse(String(d))));
    ws.once("open", () => resolve({ ws, frames, closed }));
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.once("error", reject);
  });
}

/** Still open a little later (a 1013 close would have arrived by then). */
async function stillOpen(s: Socket): Promise<boolean> {
  const code = await Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), 100))]);
  return code === null && s.ws.readyState === WebSocket.OPEN;
}

describe("security: WebSocket access by role, and connection limits per key", function () {
  this.timeout(60_000);
  let t: TestApp;
  const sockets: Socket[] = [];
  const ws = () => t.baseUrl.replace("http", "ws") + "/ws";
  const feed = () => t.baseUrl.replace("http", "ws") + "/ws/pipeline";
  const keyOf = (c: Caller) => (c === "none" ? null : c === "wrong" ? "wrong-key-0123456789" : KEYS[c]);
  const connect = async (url: string, c: Caller): Promise<Socket | number> => {
    const s = await open(url, keyOf(c));
    if (typeof s !== "number") sockets.push(s);
    return s;
  };

  before(async () => {
    t = await startTestApp({
      nodeRed: true,
      clock: new ManualClock(Date.parse("2026-11-24T08:00:00Z")),
      settings: { websocket: { max_connections: 12, max_connections_per_key: 3, max_pipeline_connections: 6 } },
    });
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.ws.terminate();
    // The server frees the terminated sockets' connection slots before the next test counts them.
    await eventually("the /ws slots freed", () => t.app.ctx.webapp.size === 0);
  });
  after(() => t.close());

  it("lets API keys, the web app and the displays in, and nobody else", async () => {
    const expected: Record<Caller, "open" | number> = {
      none: 401,
      wrong: 401,
      camera: 401,
      admin: "open",
      caregiver: "open",
      mcp: "open",
      webapp: "open",
      display: "open",
      terminal: "open",
    };
    for (const [caller, want] of Object.entries(expected) as Array<[Caller, "open" | number]>) {
      const got = await connect(ws(), caller);
      assert.equal(typeof got === "number" ? got : "open", want, `${caller} on /ws`);
    }
  });

  it("lets only callers that may answer through REST answer a prompt over /ws; the others leave it open and raise nothing", async () => {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Ask over ws", trigger_type: "manual" },
      steps: [{ label: "ask", step_type: "interactive_prompt", schema_version: 1, config: {} }],
    });
    assert.equal(imported.status, 201, imported.text);
    const callers: Caller[] = ["display", "caregiver", "mcp", "admin", "webapp", "terminal"];
    const clients = new Map<Caller, Socket>();
    for (const c of callers) clients.set(c, (await connect(ws(), c)) as Socket);
    // More than three connections in total here: each key has its own share.

    const expectations: Array<[Caller, boolean]> = [
      ["display", false],
      ["caregiver", false],
      ["mcp", false],
      ["webapp", true],
      ["terminal", true],
      ["admin", true],
    ];
    for (const [caller, may] of expectations) {
      const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
      const me = clients.get(caller)!;
      const prompt = await eventually("prompt frame", () => me.frames.find((f) => f.type === "interactive_prompt" && f.execution_id === exec));
      me.ws.send(JSON.stringify({ type: "interactive_response", execution_id: exec, step_id: prompt.step_id, action: "dismiss" }));
      if (may) {
        const result = await eventually("result", () => me.frames.find((f) => f.type === "interactive_response_result" && f.execution_id === exec));
        assert.equal(result.success, true, `${caller}: ${JSON.stringify(result)}`);
      } else {
        const err = await eventually("refusal", () => me.frames.find((f) => f.type === "error" && f.status === 403));
        assert.match(err.detail, /may not send 'interactive_response'.*POST \/api\/v1\/interactive-responses/);
        me.frames.length = 0;
        // The prompt frame goes out as the step starts; the run is recorded as parked a moment
        // later (its write is group-committed), so a read in between still says "running".
        const run = await eventually("the run recorded as parked", async () => {
          const r = (await t.get(`/api/v1/workflows/${exec}`)).body as Record<string, unknown>;
          return r.status !== "running" && r;
        });
        assert.equal(run.status, "waiting", `${caller}'s answer changed nothing`);
        assert.equal((await t.post(`/api/v1/workflows/${exec}/cancel`)).status, 200);
      }
    }
  });

  it("one key opening sockets in a loop fills only its own share: nobody is closed, others still get in", async () => {
    const caregiver = (await connect(ws(), "caregiver")) as Socket;
    const displays: Socket[] = [];
    let refused = 0;
    for (let i = 0; i < 20; i++) {
      const s = (await connect(ws(), "display")) as Socket;
      if (await stillOpen(s)) displays.push(s);
      else refused++;
    }
    assert.equal(displays.length, 3, "three per key");
    assert.equal(refused, 17);
    assert.ok(await stillOpen(caregiver), "the caregiver's connection is never closed to make room");
    const webapp = (await connect(ws(), "webapp")) as Socket;
    assert.ok(await stillOpen(webapp), "another key still gets in");
    const late = (await connect(ws(), "display")) as Socket;
    assert.equal(await late.closed, 1013, "the newcomer over the limit is refused with 1013");
  });

  it("the total limit refuses newcomers without closing anyone", async () => {
    const open: Socket[] = [];
    for (const c of ["admin", "caregiver", "mcp", "webapp"] as Caller[]) for (let i = 0; i < 3; i++) open.push((await connect(ws(), c)) as Socket);
    for (const s of open) assert.ok(await stillOpen(s));
    const over = (await connect(ws(), "terminal")) as Socket;
    assert.equal(await over.closed, 1013);
    for (const s of open) assert.ok(await stillOpen(s), "all twelve stay");
  });

  it("the live pipeline feed has the same per-key share", async () => {
    const mine: Socket[] = [];
    for (let i = 0; i < 5; i++) mine.push((await connect(feed(), "mcp")) as Socket);
    const kept = [];
    for (const s of mine) if (await stillOpen(s)) kept.push(s);
    assert.equal(kept.length, 3);
    const other = (await connect(feed(), "caregiver")) as Socket;
    assert.ok(await stillOpen(other), "the caregiver still gets the feed");
  });

  it("answers 300 malformed frames each with an error frame and stays up", async () => {
    const s = (await connect(ws(), "terminal")) as Socket;
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const junk = [
      () => "not json",
      () => "[]",
      () => "null",
      () => JSON.stringify({ type: 42 }),
      () => JSON.stringify({ type: "no_such_type" }),
      () => JSON.stringify({ type: "interactive_response" }),
      () => JSON.stringify({ type: "interactive_response", execution_id: "1", step_id: -1, action: "dismiss" }),
      () => JSON.stringify({ type: "interactive_response", execution_id: 1e300, step_id: 1, action: "dismiss\u0000" }),
      () => JSON.stringify({ type: "interactive_response", execution_id: 1, step_id: 1, action: "dismiss", raw_response: "x".repeat(rnd(5000)) }),
      () => "{".repeat(rnd(3000)),
      // Putting a popup away (any client may: it changes only its own screen).
      () => JSON.stringify({ type: "popup_dismiss" }),
      () => JSON.stringify({ type: "popup_dismiss", alert_id: [-1, 0, 1.5, "1", null, 1e300, 2 ** 60][rnd(7)] }),
      () => JSON.stringify({ type: "popup_dismiss", alert_id: 900_000 + rnd(1000) }), // no such alert: 404
      () => JSON.stringify({ type: "popup_dismiss", alert_id: 1, more: "x".repeat(rnd(5000)) }),
    ];
    const sent = 300;
    for (let i = 0; i < sent; i++) s.ws.send(junk[rnd(junk.length)]());
    // Every frame but the welcome the socket was greeted with (docs/webapp.md).
    const answers = () => s.frames.filter((f) => f.type !== "welcome");
    await eventually("an answer to every frame", () => answers().length >= sent, 10_000);
    assert.ok(
      answers().every((f) => f.type === "error" && typeof f.detail === "string"),
      JSON.stringify(answers().find((f) => f.type !== "error")),
    );
    assert.ok(await stillOpen(s));
    assert.equal((await t.get("/health")).status, 200);
  });

  it("answers malformed voice frames from the web app each with an error naming what is wrong, and stays up", async () => {
    const s = (await connect(ws(), "webapp")) as Socket;
    let seed = 11;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const junk = [
      () => JSON.stringify({ type: "voice_audio" }),
      () => JSON.stringify({ type: "voice_audio", session_id: 7, audio: "AAAA" }),
      () => JSON.stringify({ type: "voice_audio", session_id: "voice-1", audio: "not base64!" }),
      () => JSON.stringify({ type: "voice_audio", session_id: "voice-1", audio: "A".repeat(4 * (70_000 + rnd(1000))) }),
      () => JSON.stringify({ type: "voice_stop", session_id: "x".repeat(rnd(300)) }),
      () => JSON.stringify({ type: "voice_stop" }),
    ];
    const sent = 120;
    for (let i = 0; i < sent; i++) s.ws.send(junk[rnd(junk.length)]());
    const answers = () => s.frames.filter((f) => f.type !== "welcome");
    await eventually("an answer to every frame", () => answers().length >= sent, 10_000);
    assert.ok(
      answers().every((f) => f.type === "error" && typeof f.detail === "string"),
      JSON.stringify(answers().find((f) => f.type !== "error")),
    );
    // A well-formed chunk for a conversation that is not going on: told it has ended, so the tablet closes its microphone.
    s.frames.length = 0;
    s.ws.send(JSON.stringify({ type: "voice_audio", session_id: "voice-1", audio: "AAAA" }));
    const ended = await eventually("session_end", () => s.frames.find((f) => f.type === "voice"));
    assert.equal(ended.subtype, "session_end");
    assert.ok(await stillOpen(s));
    assert.equal((await t.get("/health")).status, 200);
  });

  it("closes a connection that sends a frame over 1 MB (1009) and nobody else's", async () => {
    const other = (await connect(ws(), "admin")) as Socket;
    const s = (await connect(ws(), "terminal")) as Socket;
    s.ws.send(JSON.stringify({ type: "interactive_response", raw_response: { x: "y".repeat(2 << 20) } }));
    assert.equal(await s.closed, 1009);
    assert.ok(await stillOpen(other));
    const listener = (await connect(feed(), "caregiver")) as Socket;
    listener.ws.send("x".repeat(10_000));
    assert.equal(await listener.closed, 1009, "the live feed takes no frames worth buffering");
    assert.equal((await t.get("/health")).status, 200);
  });

  it("no client can pose as the countdown: channel 'timeout' is refused (REST and /ws)", async () => {
    const body = { execution_id: 1, step_id: 1, action: "dismiss", channel: "timeout" };
    const res = await t.post("/api/v1/interactive-responses", body);
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.detail, /channel/);
    const s = (await connect(ws(), "webapp")) as Socket;
    s.ws.send(JSON.stringify({ type: "interactive_response", ...body }));
    const err = await eventually("error", () => s.frames.find((f) => f.type === "error"));
    assert.match(err.detail, /channel/);
  });
});
