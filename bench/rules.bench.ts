/**
 * Rules as flows: against the real service (Node-RED embedded), the median of
 * - validating a 30-step rule (`POST /rules/{id}/validate` with the steps and edges),
 * - saving a change to it (`PUT /rules/{id}/steps/{step}`: full deploy validation + Node-RED deploy),
 * - importing a 30-step bundle (`POST /rules/import`, then deleting it again).
 * Target: each median under 50 ms.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { median, nowMs, percentile, report } from "./support";
import { BENCH_ADMIN_KEY, startService, stopService } from "./service";

const STEPS = 30;

function bundle(name: string) {
  const steps = Array.from({ length: STEPS }, (_, i) =>
    i % 3 === 0
      ? {
          label: `check ${i}`,
          step_type: "condition",
          schema_version: 1,
          config: { expression: `occupancy_duration_minutes > ${i} and system.local_hour_24h != '03'` },
        }
      : i % 3 === 1
        ? {
            label: `tell ${i}`,
            step_type: "notification",
            schema_version: 1,
            config: { alert_level: "info", message_template: `Step ${i}: {{room_name}} at {{system.local_time}}` },
          }
        : { label: `pause ${i}`, step_type: "wait", schema_version: 2, config: { duration_minutes: 1 } },
  );
  const edges = steps
    .slice(1)
    .map((s, i) => ({ source_label: steps[i].label, source_port: steps[i].step_type === "condition" ? "true" : "main", target_label: s.label }));
  return { schema_version: 1, rule: { name, trigger_type: "manual" }, steps, edges };
}

async function timed(runs: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = nowMs();
    await fn(i);
    times.push(nowMs() - t0);
  }
  return times;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-rules-"));
  const s = await startService(dataDir, { CAREFLOW_DEMO: "0" });
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(s.baseUrl + p, {
      method,
      headers: { "x-api-key": BENCH_ADMIN_KEY, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  try {
    const base = await call("POST", "/api/v1/rules/import", bundle("Thirty steps"));
    const ruleId = base.rule_id as number;
    const steps: Array<{ id: number; step_type: string }> = await call("GET", `/api/v1/rules/${ruleId}/steps`);
    const proposal = {
      steps: bundle("x").steps.map((st) => ({ label: st.label, step_type: st.step_type, config_json: st.config, schema_version: st.schema_version })),
      edges: bundle("x").edges,
    };

    for (let i = 0; i < 5; i++) await call("POST", `/api/v1/rules/${ruleId}/validate`, proposal); // warm-up
    const validate = await timed(40, async () => void (await call("POST", `/api/v1/rules/${ruleId}/validate`, proposal)));
    const wait = steps.find((st) => st.step_type === "wait")!;
    const save = await timed(
      40,
      async (i) => void (await call("PUT", `/api/v1/rules/${ruleId}/steps/${wait.id}`, { config_json: { duration_minutes: 1 + (i % 5) } })),
    );
    const imports = await timed(30, async (i) => {
      const res = await call("POST", "/api/v1/rules/import", bundle(`Imported ${i}`));
      await call("DELETE", `/api/v1/rules/${res.rule_id}`);
    });
    const importOnly = await timed(15, async (i) => void (await call("POST", "/api/v1/rules/import", bundle(`Kept ${i}`))));

    const rows = [
      { measure: `validate a ${STEPS}-step rule (median)`, value: median(validate), unit: "ms", target: "< 50", ok: median(validate) < 50 },
      { measure: `  p95`, value: percentile(validate, 95), unit: "ms" },
      { measure: `save a step of a ${STEPS}-step rule, deployed (median)`, value: median(save), unit: "ms", target: "< 50", ok: median(save) < 50 },
      { measure: `  p95`, value: percentile(save, 95), unit: "ms" },
      { measure: `import a ${STEPS}-step bundle (median, rules kept)`, value: median(importOnly), unit: "ms", target: "< 50", ok: median(importOnly) < 50 },
      { measure: `import + delete a ${STEPS}-step bundle (median)`, value: median(imports), unit: "ms" },
    ];
    report("rules", rows, {
      steps: STEPS,
      validate_median_ms: median(validate),
      save_median_ms: median(save),
      import_median_ms: median(importOnly),
      import_delete_median_ms: median(imports),
    });
  } finally {
    await stopService(s.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
