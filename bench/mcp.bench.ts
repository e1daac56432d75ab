/**
 * The MCP server against the demo household (startTestApp, one process, so client and server
 * share the machine's 2 cores), over one streamable HTTP session opened by `initialize`, with
 * plain JSON-RPC POSTs (fetch, keep-alive): what the server costs. The official SDK's client
 * is measured beside it (rows "SDK client"): it compiles every tool's output schema on each
 * `tools/list` and adds an abort listener per request, which the server does not pay for.
 * 1. `tools/list`: 500 sequential requests on one session (target: p99 under 20 ms);
 * 2. `tools/call get_rooms` and `get_person_locations`: 3000 calls each over one session,
 *    `BENCH_MCP_CONCURRENCY` (8) in flight (target: at least 500 calls/s, p99 under 30 ms);
 * 3. the same calls through the REST mirror (`POST /api/v1/mcp/tools/{name}`), for reference.
 * Every call is recorded in the call log, as in production.
 */
import os from "node:os";
import { KEYS, startTestApp } from "../test/support/test-app";
import { connectMcp } from "../test/runtime/care/surfaces/mcp/mcp-client";
import { nowMs, percentile, report, type BenchRow } from "./support";

const LISTS = Number(process.env.BENCH_MCP_LISTS ?? 500);
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_MCP_CONCURRENCY ?? 8);

async function timed(n: number, concurrency: number, one: () => Promise<unknown>): Promise<{ latencies: number[]; perSecond: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const t0 = nowMs();
        await one();
        latencies.push(nowMs() - t0);
      }
    }),
  );
  return { latencies, perSecond: (n / (nowMs() - started)) * 1000 };
}

/** One session, plain JSON-RPC over HTTP. */
async function rawSession(baseUrl: string): Promise<(method: string, params?: unknown) => Promise<any>> {
  const headers: Record<string, string> = { "x-api-key": KEYS.mcp, accept: "application/json, text/event-stream", "content-type": "application/json" };
  const init = await fetch(`${baseUrl}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    }),
  });
  await init.text();
  const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-06-18" };
  await (
    await fetch(`${baseUrl}/mcp`, { method: "POST", headers: session, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })
  ).text();
  let id = 1;
  return async (method, params) => {
    const res = await fetch(`${baseUrl}/mcp`, { method: "POST", headers: session, body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }) });
    const body = (await res.json()) as any;
    if (res.status !== 200 || body.error || body.result?.isError) throw new Error(`${method}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    return body.result;
  };
}

async function main(): Promise<void> {
  const t = await startTestApp({ demo: true });
  const client = await connectMcp(t.baseUrl, KEYS.mcp);
  const rpc = await rawSession(t.baseUrl);
  try {
    // Warm-up: the first calls compile and open what later ones reuse.
    for (let i = 0; i < 50; i++) {
      await rpc("tools/list");
      await rpc("tools/call", { name: "get_rooms", arguments: {} });
      await client.listTools();
      await client.callTool({ name: "get_rooms", arguments: {} });
      await client.callTool({ name: "get_person_locations", arguments: {} });
    }
    const list = await timed(LISTS, 1, () => rpc("tools/list"));
    const sdkList = await timed(LISTS, 1, () => client.listTools());
    const rows: BenchRow[] = [];
    const figures: Record<string, unknown> = { cpus: os.cpus().length, concurrency: CONCURRENCY };
    const listP99 = percentile(list.latencies, 99);
    rows.push({ measure: "tools/list p50", value: percentile(list.latencies, 50), unit: "ms" });
    rows.push({ measure: "tools/list p99", value: listP99, unit: "ms", target: "< 20", ok: listP99 < 20 });
    figures.tools_list_p50_ms = percentile(list.latencies, 50);
    figures.tools_list_p99_ms = listP99;
    rows.push({ measure: "SDK client tools/list p99", value: percentile(sdkList.latencies, 99), unit: "ms" });
    figures.sdk_tools_list_p99_ms = percentile(sdkList.latencies, 99);
    for (const name of ["get_rooms", "get_person_locations"]) {
      const r = await timed(CALLS, CONCURRENCY, () => rpc("tools/call", { name, arguments: {} }));
      const sdk = await timed(CALLS, CONCURRENCY, async () => {
        const res = await client.callTool({ name, arguments: {} });
        if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
      });
      const p99 = percentile(r.latencies, 99);
      rows.push({ measure: `tools/call ${name} rate`, value: r.perSecond, unit: "calls/s", target: ">= 500", ok: r.perSecond >= 500 });
      rows.push({ measure: `tools/call ${name} p50`, value: percentile(r.latencies, 50), unit: "ms" });
      rows.push({ measure: `tools/call ${name} p99`, value: p99, unit: "ms", target: "< 30", ok: p99 < 30 });
      figures[`${name}_calls_per_s`] = Math.round(r.perSecond);
      figures[`${name}_p50_ms`] = percentile(r.latencies, 50);
      figures[`${name}_p99_ms`] = p99;
      rows.push({ measure: `SDK client ${name} rate`, value: sdk.perSecond, unit: "calls/s" });
      rows.push({ measure: `SDK client ${name} p99`, value: percentile(sdk.latencies, 99), unit: "ms" });
      figures[`sdk_${name}_calls_per_s`] = Math.round(sdk.perSecond);
      const rest = await timed(CALLS, CONCURRENCY, async () => {
        const res = await t.request("POST", `/api/v1/mcp/tools/${name}`, { key: KEYS.mcp, body: {} });
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
      });
      rows.push({ measure: `REST mirror ${name} rate`, value: rest.perSecond, unit: "calls/s" });
      rows.push({ measure: `REST mirror ${name} p99`, value: percentile(rest.latencies, 99), unit: "ms" });
      figures[`rest_${name}_calls_per_s`] = Math.round(rest.perSecond);
    }
    const logged = await t.get(`/api/v1/mcp/calls?limit=1`);
    figures.calls_logged_last_id = logged.body[0]?.id ?? null;
    report("mcp", rows, figures);
  } finally {
    await client.close();
    await t.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
