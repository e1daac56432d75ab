/**
 * `/mcp` under malformed JSON-RPC, over raw HTTP: every answer is a well-formed HTTP
 * response (a status line, a length, a JSON body) carrying a JSON-RPC error, with or without
 * a session; bodies nested deeper than `/api/v1` allows are refused at the same depth.
 * A seeded fuzz mutates valid messages (`CAREFLOW_FUZZ_SEED` replays a run).
 */
import assert from "node:assert/strict";
import { prng } from "../support/prng";
import { rawRequest, type RawResponse } from "../support/raw-http";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";
import { MAX_JSON_DEPTH } from "../../runtime/platform/http/json-body";

const SEED = Number(process.env.CAREFLOW_FUZZ_SEED ?? 20261129);
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const CALL = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_rooms", arguments: {} } };

/** A status line with a known status, a body of the length announced, JSON-RPC inside. */
function assertWellFormed(res: RawResponse, what: string): void {
  assert.ok(Number.isInteger(res.status) && res.status >= 200 && res.status < 500, `${what}: status line ${res.status}`);
  if (res.status === 202) return assert.equal(res.body, "", `${what}: 202 (a notification or a response, accepted) has no body`);
  assert.match(res.headers["content-type"] ?? "", /json/, `${what}: content type`);
  if (res.headers["content-length"] !== undefined) assert.equal(Buffer.byteLength(res.body), Number(res.headers["content-length"]), `${what}: length`);
  const body = res.json as Record<string, unknown> | Array<Record<string, unknown>> | undefined;
  assert.ok(body !== undefined, `${what}: not JSON: ${res.body.slice(0, 200)}`);
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages) assert.equal(m.jsonrpc, "2.0", `${what}: ${res.body.slice(0, 200)}`);
  if (res.status >= 400) {
    const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
    assert.equal(typeof error?.code, "number", `${what}: no JSON-RPC error: ${res.body.slice(0, 200)}`);
    assert.equal(typeof (body as { detail?: unknown }).detail, "string", `${what}: no detail`);
  }
}

describe("security: /mcp answers malformed JSON-RPC with well-formed HTTP", function () {
  this.timeout(120_000);
  let t: TestApp;
  let port: number;
  let session: string;
  before(async () => {
    t = await startTestApp();
    port = Number(new URL(t.baseUrl).port);
    const init = await post(JSON.stringify(INIT));
    assert.equal(init.status, 200, init.body);
    session = init.headers["mcp-session-id"];
  });
  after(() => t.close());

  const post = (body: string, headers: Record<string, string> = {}) =>
    rawRequest(port, {
      timeoutMs: 60_000,
      method: "POST",
      target: "/mcp",
      headers: { authorization: `Bearer ${KEYS.mcp}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body,
    });

  const MALFORMED: Array<[string, unknown]> = [
    ["an extra top-level field on initialize", { ...INIT, extra: 1 }],
    ["an extra top-level field", { ...LIST, extra: 1 }],
    ["an object id", { ...LIST, id: { a: 1 } }],
    ["an array id", { ...LIST, id: [1] }],
    ["a boolean id", { ...LIST, id: true }],
    ["a bad batch entry", [LIST, 5]],
    ["a batch entry without a method", [LIST, { jsonrpc: "2.0" }]],
    ["an empty batch", []],
    ["jsonrpc 1.0", { ...LIST, jsonrpc: "1.0" }],
    ["a method that is a number", { ...LIST, method: 7 }],
    ["params that are a string", { ...CALL, params: "x" }],
    ["a result sent to the server", { jsonrpc: "2.0", id: 9, result: {} }],
    ["an error sent to the server", { jsonrpc: "2.0", id: 9, error: { code: 1 } }],
    ["a notification with an extra field", { jsonrpc: "2.0", method: "notifications/initialized", extra: 1 }],
  ];

  for (const [what, message] of MALFORMED)
    it(`answers ${what} with a well-formed response (a JSON-RPC error, or 202 when accepted), with and without a session`, async () => {
      assertWellFormed(await post(JSON.stringify(message)), `${what} (no session)`);
      assertWellFormed(await post(JSON.stringify(message), { "mcp-session-id": session }), `${what} (session)`);
    });

  it("answers text that is not JSON with a JSON-RPC parse error (-32700)", async () => {
    const res = await post('{"jsonrpc":"2.0",', { "mcp-session-id": session });
    assertWellFormed(res, "truncated JSON");
    assert.equal((res.json as { error: { code: number } }).error.code, -32700);
  });

  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels with 422, as /api/v1 does, and still serves the session`, async () => {
    const nest = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    // Depth counts from the body: the message is level 1, `params` 2, `arguments` 3.
    const deep = (depth: number) => `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_rooms","arguments":{"x":${nest(depth - 3)}}}}`;
    const refused = await post(deep(MAX_JSON_DEPTH + 1), { "mcp-session-id": session });
    assertWellFormed(refused, "too deep");
    assert.equal(refused.status, 422);
    assert.equal((refused.json as { detail: string }).detail, `body: nested deeper than ${MAX_JSON_DEPTH} levels`);
    const huge = await post(`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":${nest(500_000)}}`, { "mcp-session-id": session });
    assert.equal(huge.status, 422);
    const api = await t.request("POST", "/api/v1/rooms", { rawBody: `{"name":${nest(MAX_JSON_DEPTH)}}`, headers: { "content-type": "application/json" } });
    assert.equal(api.status, 422, "the /api/v1 limit is the same");
    const within = await post(deep(MAX_JSON_DEPTH), { "mcp-session-id": session });
    assertWellFormed(within, "at the limit");
    assert.equal(within.status, 200, within.body);
  });

  it("answers 400 seeded mutations of valid messages with well-formed responses", async () => {
    const rnd = prng(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    const odd: unknown[] = [null, 0, -1, 1.5, "", "x", true, [], {}, [1], { a: 1 }, "2.0", 2 ** 53];
    const mutate = (m: Record<string, unknown>): unknown => {
      const out: Record<string, unknown> = structuredClone(m);
      const n = 1 + Math.floor(rnd() * 3);
      for (let i = 0; i < n; i++) {
        const field = pick(["jsonrpc", "id", "method", "params", "extra", "result", "error"]);
        if (rnd() < 0.2) delete out[field];
        else out[field] = pick(odd);
      }
      return rnd() < 0.25 ? [out, pick([...odd, LIST])] : out;
    };
    for (let i = 0; i < 400; i++) {
      const message = mutate(pick([INIT, LIST, CALL]));
      const headers: Record<string, string> = rnd() < 0.7 ? { "mcp-session-id": session } : {};
      assertWellFormed(await post(JSON.stringify(message), headers), `#${i} ${JSON.stringify(message).slice(0, 120)}`);
    }
  });
});
