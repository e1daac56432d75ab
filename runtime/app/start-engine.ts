/**
 * The rules engine in embedded Node-RED: the host attached to the store's flows (a deploy
 * checked, indexed and announced to the other instances; the Devices tab kept), the engine
 * started with its gates, the deploys shared between instances, the prompts' answers and
 * timeouts, the triggers and the live feed of runs. Each stop is added to the app's lifecycle.
 */
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { AppContext } from "./context";
import type { RunConfig } from "../platform/config/load-settings";
import type { Lifecycle } from "../platform/core/lifecycle";
import { isoNow } from "../platform/core/clock";
import { kvGet, kvSet } from "../platform/db/kv";
import type { Cluster } from "../platform/cluster/cluster";
import { nodeRedHost, type HostTarget } from "../platform/nodered/host";
import { readFlows } from "../platform/nodered/flow-store";
import { saveFlowsWithIndex, type DeployChecker } from "../care/core/rules/flow-writer";
import { deployWarningsHtml } from "../care/core/rules/deploy-messages";
import { PipelineEngine } from "../care/core/pipeline/engine/engine";
import { PipelineFeed } from "../care/core/pipeline/live-feed";
import { ruleGates } from "../care/core/pipeline/gates/check-gates";
import { startTriggers, type RunningTriggers } from "../care/core/pipeline/triggers/start-triggers";
import { registerInteractiveHandlers, watchPromptTimeouts } from "../care/services/interactive";
import type { CareServices } from "../../nodes/_kit/care-services";
import type { FrameAggregator } from "../household/devices/aggregator";
import type { DeviceEndpoints } from "../household/devices/device-endpoints";
import { deviceServices } from "../household/devices/device-services";
import { withDevicesTab } from "../household/devices/devices-tab";
import { fanOutRuns } from "./cluster/cluster-events";
import { shareDeploys, type SharedDeploys } from "./cluster/shared-deploys";
import type { AppMetrics } from "./metrics/app-metrics";
import { editorPageScriptFile, nodeRedPackageDir } from "../../nodes/_build/emit-package";

/** What the app's context reads once they run: the engine (ctx.engine, ctx.firer) and the shared deploys (a rule write catches up first). */
export interface LateParts {
  engine?: PipelineEngine;
  deploys?: SharedDeploys;
}

export interface EngineParts {
  config: RunConfig;
  lifecycle: Lifecycle;
  services: CareServices;
  deployCheck: DeployChecker;
  cluster: Cluster;
  metrics: AppMetrics;
  devices: { aggregator: FrameAggregator; endpoints: DeviceEndpoints };
  late: LateParts;
}

export interface RunningEngine {
  engine: PipelineEngine;
  triggers: RunningTriggers;
  feed: PipelineFeed;
}

async function credentialSecret(ctx: AppContext): Promise<string> {
  const configured = ctx.settings.node_red.credential_secret;
  if (configured) return configured;
  const stored = await kvGet(ctx.db, "node-red:credential-secret");
  if (stored) return stored;
  // Generated once and kept in the store, never Node-RED's default key beside the flows.
  const secret = randomBytes(32).toString("hex");
  await kvSet(ctx.db, "node-red:credential-secret", secret, isoNow(ctx.clock));
  return secret;
}

export async function startRulesEngine(ctx: AppContext, parts: EngineParts): Promise<RunningEngine> {
  const { config, lifecycle, services, deployCheck, cluster, metrics, late } = parts;
  const { aggregator, endpoints: deviceEndpoints } = parts.devices;
  const { keys, log, clock, settings } = ctx;
  let restoreDevicesTab = false;
  /** The stored flows' JSON while this instance runs flows another instance stored (they need no saving). */
  let runningStored: string | null = null;
  const target: HostTarget = {
    db: ctx.db,
    keys,
    log,
    now: () => isoNow(clock),
    credentialSecret: await credentialSecret(ctx),
    userDir: path.join(config.dataDir, "node-red"),
    nodesDir: nodeRedPackageDir(),
    pageScripts: [editorPageScriptFile()],
    logLevel: settings.app.log_level,
    services: {},
    saveFlows: async (flows) => {
      if (runningStored !== null && JSON.stringify(flows) === runningStored) return;
      await late.engine?.drainInFlight();
      // A deploy that deleted the Devices tab stores it back; the runtime runs it once this deploy has started.
      const devicesTab = withDevicesTab(flows);
      const report = await saveFlowsWithIndex(ctx.db, devicesTab.flows, isoNow(clock), deployCheck);
      late.deploys?.announce();
      if (report.warnings.length) nodeRedHost.notifyEditors("careflow-deploy", deployWarningsHtml(report.warnings), "warning");
      if (devicesTab.restored) {
        restoreDevicesTab = true;
        log.warn({}, "a deploy deleted the Devices tab: it is restored");
        nodeRedHost.notifyEditors(
          "careflow-devices-tab",
          "The <b>Devices</b> tab is part of careflow (cameras and the terminal reach it there): it has been restored.",
          "warning",
        );
      }
    },
    // Triggers re-read the rules once the runtime runs the new flows, not when they are saved.
    onFlowsStarted: () => {
      ctx.bus.publish("rules.changed", {});
      if (restoreDevicesTab) {
        restoreDevicesTab = false;
        nodeRedHost.reloadFlows().catch((err: unknown) => log.error({ err }, "running the restored Devices tab failed"));
      }
    },
  };
  const pipeline = new PipelineEngine(ctx, nodeRedHost, services);
  target.services = { ctx, engine: pipeline, devices: { services: deviceServices(ctx, aggregator), endpoints: deviceEndpoints } };
  await nodeRedHost.attach(target);
  lifecycle.add("node-red", () => nodeRedHost.detach(target));
  await pipeline.start();
  pipeline.setGates(ruleGates(ctx, { services }));
  late.engine = pipeline;
  lifecycle.add("engine", () => pipeline.stop());
  lifecycle.add("metrics: runs", metrics.watchRuns(pipeline.live));
  metrics.queues.add("run_writes", () => pipeline.store.queuedRuns);
  if (cluster.enabled) {
    lifecycle.add("cluster: run events", fanOutRuns(pipeline.live, cluster.link, clock));
    const shared = shareDeploys({
      db: ctx.db,
      link: cluster.link,
      log,
      running: {
        rev: async () => (await nodeRedHost.getFlows()).rev,
        // Only the tabs that changed restart (a "flows" deploy of the stored flows, as an
        // editor's deploy does): the Devices tab keeps answering cameras while a rule changes.
        reload: async () => {
          await pipeline.drainInFlight();
          const stored = await readFlows(ctx.db);
          runningStored = JSON.stringify(stored);
          try {
            await nodeRedHost.setFlows(stored);
          } finally {
            runningStored = null;
          }
        },
      },
    });
    late.deploys = shared;
    lifecycle.add("cluster: deploys", () => {
      late.deploys = undefined;
      shared.stop();
    });
    // A deploy made elsewhere while this instance was starting runs here too.
    await shared.catchUp();
  }
  registerInteractiveHandlers(ctx);
  lifecycle.add("prompt timeouts", watchPromptTimeouts(ctx, pipeline));
  const started = startTriggers(ctx, pipeline);
  lifecycle.add("triggers", () => started.stop());
  const liveFeed = new PipelineFeed(keys, pipeline.live, log, () => ({
    max_connections: settings.websocket.max_pipeline_connections,
    max_connections_per_key: settings.websocket.max_connections_per_key,
  }));
  // A revoked or rotated key's sockets close here, wherever it was revoked.
  lifecycle.add(
    "revoked keys' sockets",
    ctx.bus.subscribe("key.revoked", ({ key_id }) => liveFeed.closeKey(key_id), { otherInstances: true }),
  );
  lifecycle.add("live feed", () => liveFeed.close());
  return { engine: pipeline, triggers: started, feed: liveFeed };
}
