/**
 * Every client frame `/ws` handles × every kind of caller that may connect, against the spec's
 * role table (test/support/spec-roles.ts), like the REST role matrix: a frame needs the
 * permission of its REST twin. The frame types come from the running app's own handlers, so a
 * frame added later is covered without anyone remembering.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";
import { eventually } from "../support/eventually";
import { expected, type Caller } from "../support/spec-roles";

type Frame = Record<string, any>;
/**
 * Each client frame's REST twin as the spec's endpoints give it (written out here, not read from
 * the code): answering a prompt, a quiz, a card, talking with the voice companion. `null`: no
 * twin, any key that may connect may send it (putting a popup away changes only its own screen).
 */
const FRAME_TWINS: Record<string, string | null> = {
  popup_dismiss: null,
  interactive_response: "POST /api/v1/interactive-responses",
  quiz_answer: "POST /api/v1/knowledge-interactions/quiz-sessions/:id/answers",
  quiz_abandon: "POST /api/v1/knowledge-interactions/quiz-sessions/:id/abandon",
  info_card_viewed: "POST /api/v1/knowledge-interactions/info-card-deliveries/:id/dismiss",
  info_card_dismiss: "POST /api/v1/knowledge-interactions/info-card-deliveries/:id/dismiss",
  voice_start: "POST /api/v1/voice/sessions",
  voice_audio: "POST /api/v1/voice/sessions",
  voice_stop: "POST /api/v1/voice/sessions",
};

/** Callers whose keys may open `/ws` (API keys, the terminal and the display); a camera may not. */
const CONNECTING: readonly Caller[] = ["admin", "caregiver", "mcp", "webapp", "display", "terminal"];

describe("security: every /ws client frame × every kind of caller (frame matrix from the app's handlers)", function () {
  this.timeout(60_000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t?.close());

  it("handles exactly the frames the table names (a new frame needs its row here)", () => {
    const types = t.app.ctx.webapp.frameTypes().map((f) => f.type);
    assert.deepEqual([...types].sort(), Object.keys(FRAME_TWINS).sort());
  });

  for (const caller of CONNECTING) {
    it(`answers each frame of a ${caller} key as the role table says: refused with 403, or handled`, async () => {
      const ws = new WebSocket(t.baseUrl.replace("http", "ws") + "/ws", [KEYS[caller as keyof typeof KEYS]]);
      const frames: Frame[] = [];
      ws.on("message", (d) => frames.push(JSON.parse(String(d))));
      await new Promise<void>((resolve, reject) => {
        ws.once("open", () => resolve());
        ws.once("error", reject);
      });
      try {
        const wrong: string[] = [];
        for (const type of Object.keys(FRAME_TWINS)) {
          const twin = FRAME_TWINS[type];
          const [method, path] = twin ? twin.split(" ") : ["", ""];
          const allowed = twin === null || expected({ method, path }, caller) === "allow";
          const seen = frames.length;
          // The refusal is sent before the next frame is read: the unknown probe's answer closes the window.
          ws.send(JSON.stringify({ type }));
          const probe = `probe_after_${type}`;
          ws.send(JSON.stringify({ type: probe }));
          await eventually(`the answer to ${probe}`, () => frames.slice(seen).some((f) => String(f.detail ?? "").includes(probe)));
          const refused = frames.slice(seen).some((f) => f.type === "error" && f.status === 403 && String(f.detail).includes(`'${type}'`));
          if (refused === allowed) wrong.push(`${type} (as ${FRAME_TWINS[type] ?? "any connecting key"}): ${allowed ? "refused" : "not refused"}`);
        }
        assert.deepEqual(wrong, [], `${caller}: frames answered against the role table`);
      } finally {
        ws.close();
      }
    });
  }
});
