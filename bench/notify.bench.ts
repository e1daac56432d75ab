/**
 * Notification fan-out: a run reaching a notification step with the popup and webhook
 * channels, 50 web-app clients on /ws and one webhook receiver on loopback. Measured: from
 * the step starting to the last of the 50 clients receiving the frame.
 * Target: p99 under 50 ms.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { createApp } from "../runtime/app/app";
import { buildSettings } from "../runtime/platform/config/load-settings";
import { createLogger } from "../runtime/platform/core/logger";
import { nodeRedHost } from "../runtime/platform/nodered/host";
import { triggerContext } from "../runtime/care/core/pipeline/engine/types";
import { commitImport } from "../runtime/care/core/rules/bundles/bundle-import";
import { findRule } from "../runtime/care/core/rules/rule-read";
import { nowMs, percentile, report } from "./support";

const CLIENTS = 50;
const RUNS = Number(process.env.BENCH_NOTIFY_RUNS ?? 200);
const KEY = "bench-admin-key-01";
const tabletKey = (i: number): string => `bench-tablet-key-${String(i).padStart(3, "0")}`;

async function main(): Promise<void> {
  let hooks = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hooks++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-notify-"));
  const settings = buildSettings({
    // One web app key per tablet, as a household gives each its own (a key holds 10 sockets at most).
    auth: {
      api_keys: [
        { key: KEY, name: "bench", permissions: ["admin"] },
        ...Array.from({ length: CLIENTS }, (_, i) => ({ key: tabletKey(i), name: `tablet ${i}`, permissions: ["webapp"] })),
      ],
    },
    notifications: { webhook: { url: hookUrl, headers: { Authorization: "Bearer bench-token" } } },
  });
  const app = await createApp({
    config: { port: 0, dataDir, databaseUrl: undefined, settingsFile: undefined, settings },
    log: createLogger("error"),
    nodeRed: true,
  });
  const port = await app.listen(0, "127.0.0.1");

  let arrivals: number[] = [];
  const clients = await Promise.all(
    Array.from(
      { length: CLIENTS },
      (_, i) =>
        new Promise<WebSocket>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, [tabletKey(i)]);
          ws.on("message", (d) => {
            if (String(d).includes('"type":"info"')) arrivals.push(nowMs());
          });
          ws.once("open", () => resolve(ws));
        }),
    ),
  );

  const { rule_id } = await commitImport(app.ctx, {
    schema_version: 1,
    rule: { name: "Fan-out", trigger_type: "manual" },
    steps: [
      {
        label: "tell",
        step_type: "notification",
        schema_version: 1,
        config: { alert_level: "info", channels: ["pwa_popup_text", "webhook"], message_template: "Tea is ready" },
      },
    ],
  });
  const { flows, index } = await app.ctx.flows.snapshot();
  const rule = findRule(flows, index, rule_id!);
  let stepStarted = 0;
  const off = app.ctx.engine!.live.subscribe((e) => {
    if (e.event_type === "step_started" && e.step_label === "tell") stepStarted = nowMs();
  });

  const latencies: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    arrivals = [];
    await app.engine!.startRun(rule, triggerContext({ trigger_type: "manual" }), null, null);
    const until = Date.now() + 2000;
    while (arrivals.length < CLIENTS && Date.now() < until) await new Promise((r) => setImmediate(r));
    if (arrivals.length === CLIENTS) latencies.push(Math.max(...arrivals) - stepStarted);
  }
  off();
  for (const c of clients) c.close();
  await new Promise((r) => setTimeout(r, 200));
  await app.close();
  await nodeRedHost.shutdown();
  receiver.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const p99 = percentile(latencies, 99);
  report(
    "notify",
    [
      { measure: `step start → last of ${CLIENTS} /ws clients, p50`, value: percentile(latencies, 50), unit: "ms" },
      { measure: `step start → last of ${CLIENTS} /ws clients, p99`, value: p99, unit: "ms", target: "< 50", ok: p99 < 50 },
      { measure: "runs where every client got the frame", value: `${latencies.length}/${RUNS}`, unit: "" },
      { measure: "webhook deliveries received", value: hooks, unit: "", target: String(RUNS), ok: hooks === RUNS },
    ],
    { clients: CLIENTS, runs: RUNS, fanout_p50_ms: percentile(latencies, 50), fanout_p99_ms: p99, complete_runs: latencies.length, webhooks: hooks },
  );
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
