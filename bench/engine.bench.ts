/**
 * The pipeline engine, in one process with the embedded Node-RED:
 * 1. runs/s through a 5-step flow of condition steps with full durable recording, against
 *    the same shape built from plain Node-RED `change` nodes with no recording
 *    (target, issue 29: careflow at least half the plain rate);
 * 2. trigger-to-first-step latency at 100 runs/s (target: p99 under 20 ms);
 * 3. 10,000 parked waits resumed after a restart (target: each within 1 s of its due time).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createApp, type CareflowApp } from "../runtime/app/app";
import { buildSettings } from "../runtime/platform/config/load-settings";
import { createLogger } from "../runtime/platform/core/logger";
import { nodeRedHost } from "../runtime/platform/nodered/host";
import type { FlowNode } from "../runtime/platform/nodered/flow-store";
import { triggerContext } from "../runtime/care/core/pipeline/engine/types";
import { parseRow, selectExecutions, whereStatus } from "../runtime/care/core/pipeline/engine/execution-rows";
import type { ExecutionStatus } from "../runtime/care/core/pipeline/engine/run-state";
import { findRule } from "../runtime/care/core/rules/rule-read";
import { commitImport } from "../runtime/care/core/rules/bundles/bundle-import";
import { nowMs, percentile, report } from "./support";

const RUNS = Number(process.env.BENCH_ENGINE_RUNS ?? 10000);
/** Runs each side makes before it is measured, so both are measured warm. */
const WARMUP = 5000;
const WAITS = Number(process.env.BENCH_ENGINE_WAITS ?? 10000);

async function open(dataDir: string): Promise<CareflowApp> {
  const settings = buildSettings({ auth: { api_keys: [{ key: "bench-admin-key-01", name: "bench", permissions: ["admin"] }] } });
  return createApp({ config: { port: 0, dataDir, databaseUrl: undefined, settingsFile: undefined, settings }, log: createLogger("error"), nodeRed: true });
}

const chainBundle = (name: string, step: (i: number) => Record<string, unknown>, n: number) => ({
  schema_version: 1,
  rule: { name, trigger_type: "manual", execution_timeout_minutes: 60 },
  steps: Array.from({ length: n }, (_, i) => ({ label: `s${i}`, schema_version: step(i).step_type === "wait" ? 2 : 1, ...step(i) })),
  edges: Array.from({ length: n - 1 }, (_, i) => ({
    source_label: `s${i}`,
    source_port: step(i).step_type === "condition" ? "true" : "main",
    target_label: `s${i + 1}`,
  })),
});

/** Plain Node-RED: 5 change nodes in a chain, counted at the last one's completion. */
async function plainRate(): Promise<number> {
  const { flows, rev } = await nodeRedHost.getFlows();
  const ids = Array.from({ length: 5 }, (_, i) => `plain${i}`);
  const tab: FlowNode[] = [{ id: "plaintab", type: "tab", label: "plain" }];
  ids.forEach((id, i) =>
    tab.push({
      id,
      type: "change",
      z: "plaintab",
      rules: [{ t: "set", p: `v${i}`, pt: "msg", to: "x", tot: "str" }],
      x: 100 + i * 150,
      y: 100,
      wires: [i < 4 ? [ids[i + 1]] : []],
    }),
  );
  await nodeRedHost.setFlows([...flows, ...tab], rev);
  const hooks = nodeRedHost.hooks()!;
  let done = 0;
  hooks.add("onComplete.benchplain", (e) => {
    if (e.node?.id === "plain4") done++;
  });
  const first = nodeRedHost.getNode<{ receive(m: object): void }>("plain0")!;
  const pass = async (n: number): Promise<number> => {
    done = 0;
    const t0 = nowMs();
    for (let i = 0; i < n; i++) {
      first.receive({ payload: i });
      if (i % 500 === 0) await new Promise((r) => setImmediate(r));
    }
    while (done < n) await new Promise((r) => setImmediate(r));
    return n / ((nowMs() - t0) / 1000);
  };
  await pass(WARMUP * 5);
  const rate = await pass(RUNS * 5);
  hooks.remove("*.benchplain");
  return rate;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-engine-"));
  let app = await open(dataDir);
  const ctx = () => app.ctx;
  const engine = () => app.engine!;

  // 1. throughput
  const plain = await plainRate();
  const { rule_id } = await commitImport(
    ctx(),
    chainBundle("Five conditions", () => ({ step_type: "condition", config: { expression: "trigger_type == 'manual'" } }), 5),
  );
  const { flows, index } = await ctx().flows.snapshot();
  const rule = findRule(flows, index, rule_id!);
  let completed = 0;
  const off = engine().live.subscribe(() => completed++, ["pipeline_completed"]);
  const runs = async (n: number): Promise<number> => {
    completed = 0;
    const t0 = nowMs();
    // Up to 64 runs in flight at a time, counted by their ends (a start returns at once).
    for (let i = 0; i < n; i++) {
      void engine().startRun(rule, triggerContext({ trigger_type: "manual" }), null, null);
      while (i + 1 - completed >= 64) await new Promise((r) => setImmediate(r));
    }
    while (completed < n) await new Promise((r) => setTimeout(r, 1));
    return n / ((nowMs() - t0) / 1000);
  };
  await runs(WARMUP);
  const careflow = await runs(RUNS);
  off();

  // 2. trigger-to-first-step latency at 100 runs/s
  const firstStep = new Map<number, number>();
  const off2 = engine().live.subscribe((e) => {
    if (e.event_type === "step_started" && !firstStep.has(e.execution_id)) firstStep.set(e.execution_id, nowMs());
  });
  const firedAt = new Map<number, number>();
  for (let i = 0; i < 300; i++) {
    const at = nowMs();
    const id = await engine().startRun(rule, triggerContext({ trigger_type: "manual" }), null, null);
    firedAt.set(id, at);
    // Pace at 100 runs/s.
    const wait = 10 - (nowMs() - at);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await new Promise((r) => setTimeout(r, 200));
  off2();
  const latencies = [...firedAt].filter(([id]) => firstStep.has(id)).map(([id, at]) => firstStep.get(id)! - at);

  // 3. parked waits across a restart
  const waitRule = await commitImport(
    ctx(),
    chainBundle(
      "Wait then check",
      (i) => (i === 0 ? { step_type: "wait", config: { duration_minutes: 0.25 } } : { step_type: "condition", config: { expression: "true" } }),
      2,
    ),
  );
  const snap = await ctx().flows.snapshot();
  const wrule = findRule(snap.flows, snap.index, waitRule.rule_id!);
  const tp = nowMs();
  for (let i = 0; i < WAITS; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, WAITS - i) }, () => engine().startRun(wrule, triggerContext({ trigger_type: "manual" }), null, null)));
  }
  // Status in the SQL text, as the engine queries it, so the partial index serves the poll.
  const count = async (statuses: ExecutionStatus[]) =>
    Number((await whereStatus(ctx().db("workflow_executions"), statuses).where({ rule_id: waitRule.rule_id }).count({ n: "*" }))[0].n);
  while ((await count(["waiting"])) < WAITS) await new Promise((r) => setTimeout(r, 50));
  const parkMs = nowMs() - tp;
  await app.close();
  app = await open(dataDir);
  const lastDue = Date.parse(((await ctx().db("workflow_executions").where({ rule_id: waitRule.rule_id }).max({ m: "resume_at" }))[0] as { m: string }).m);
  for (;;) {
    const left = await count(["waiting", "running"]);
    if (left === 0 || Date.now() > lastDue + 120_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const raw: Array<Record<string, unknown>> = await selectExecutions(ctx().db).where("we.rule_id", waitRule.rule_id);
  const rows = raw.map((r) => parseRow(r));
  const lateness = rows.map((r) => {
    // Due: 15 s after the wait step started.
    const due = Date.parse(r.step_records[0].started_at) + 15_000;
    return r.completed_at ? Date.parse(r.completed_at) - due : Infinity;
  });
  const resumedOk = rows.filter((r) => r.status === "completed").length;
  await app.close();
  await nodeRedHost.shutdown();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const ratio = careflow / plain;
  const p99 = percentile(latencies, 99);
  const lateP100 = Math.max(...lateness);
  report(
    "engine",
    [
      { measure: "plain Node-RED, 5 change nodes (no recording)", value: plain, unit: "runs/s" },
      { measure: "careflow, 5 condition steps, durable recording", value: careflow, unit: "runs/s" },
      { measure: "  ratio careflow / plain", value: ratio, unit: "", target: ">= 0.5", ok: ratio >= 0.5 },
      { measure: "trigger to first step at 100 runs/s, p99", value: p99, unit: "ms", target: "< 20", ok: p99 < 20 },
      { measure: "  p50", value: percentile(latencies, 50), unit: "ms" },
      { measure: `parking ${WAITS} waits`, value: parkMs / 1000, unit: "s" },
      { measure: `${WAITS} waits resumed after a restart: completed`, value: resumedOk, unit: "runs" },
      { measure: "  latest completion after its due time", value: lateP100 / 1000, unit: "s", target: "< 1", ok: lateP100 < 1000 },
      { measure: "  p50 lateness", value: percentile(lateness, 50) / 1000, unit: "s" },
    ],
    {
      plain_runs_per_s: plain,
      careflow_runs_per_s: careflow,
      ratio,
      first_step_p99_ms: p99,
      waits: WAITS,
      waits_completed: resumedOk,
      waits_max_late_s: lateP100 / 1000,
    },
  );
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
