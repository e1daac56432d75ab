/**
 * The app factory: builds the whole service (store, keys, routers, embedded Node-RED)
 * without listening, so `main.ts` listens on PORT and tests on port 0.
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import type { AddressInfo } from "node:net";
import type { Settings } from "../../settings";
import { KeyStore } from "../platform/auth/key-store";
import { managedKeyLookup } from "../platform/auth/managed-keys";
import type { RunConfig } from "../platform/config/load-settings";
import type { AppContext } from "./context";
import { newCareWork } from "../care/core/context";
import { systemClock, isoNow, type Clock } from "../platform/core/clock";
import { EventBus } from "../platform/core/event-bus";
import { createLogger, type Logger } from "../platform/core/logger";
import { Lifecycle } from "../platform/core/lifecycle";
import { openStore, storeConfig } from "../platform/db/store";
import { checkClusterStore, startCluster } from "../platform/cluster/cluster";
import { whileHolding } from "../platform/cluster/leases";
import { createDemoKeys, readDemoKeys } from "./demo/demo-keys";
import { isStoreEmpty, seedDemoHousehold } from "./demo/demo-household";
import { importExampleRules } from "./demo/example-rules";
import { seedDemoKnowledge } from "./demo/demo-knowledge";
import { upsertDeviceSensors } from "../household/devices/device-sensors";
import { ensureDefaultTemplate } from "../care/services/eink/default-template";
import { checkLayouts } from "../care/services/knowledge/layouts/layouts";
import { createExpressServer } from "../platform/http/express-server";
import { answerClientErrors } from "../platform/http/client-errors";
import { refusedUpgrade } from "../platform/auth/blocked-address";
import { nodeRedHost } from "../platform/nodered/host";
import { FlowWriter, directFlowSource, type DeployChecker, type FlowSource } from "../care/core/rules/flow-writer";
import { checkDeploy } from "../care/core/rules/flow-validation";
import { readHouseholdNames } from "../care/core/rules/household-names";
import { PipelineEngine } from "../care/core/pipeline/engine/engine";
import { PipelineFeed } from "../care/core/pipeline/live-feed";
import { WebAppHub } from "../platform/ws/webapp-hub";
import type { RunningTriggers } from "../care/core/pipeline/triggers/start-triggers";
import { startRulesEngine, type LateParts } from "./start-engine";
import { httpApp } from "./http-app";
import { startWebAppSocket } from "./webapp/webapp-socket";
import { checkMediaStore } from "./ops/media-store-check";
import { startHomeHub } from "./start-hub";
import { startAgents } from "./start-agents";
import { startEscalation, type EscalationHandle } from "../care/services/notify/escalation";
import type { CareServices } from "../../nodes/_kit/care-services";
import { careServices } from "../care/services/care-services";
import { startChat } from "../care/services/chat/chat.service";
import { forwardAlertUpdates } from "../household/alerts/alert-updates";
import { startMediaSweep } from "../household/media/media.service";
import { ServiceUnavailableError } from "../platform/core/errors";
import { startKnowledgeIndexing } from "../care/services/knowledge/documents/indexing";
import { FrameAggregator } from "../household/devices/aggregator";
import { DeviceEndpoints } from "../household/devices/device-endpoints";
import { ensureDevicesTab } from "../household/devices/devices-tab";
import { startParts } from "./ops/health-parts";
import type { FreeSpaceReader } from "../platform/health/gauges";
import { startHubHeartbeat } from "../household/hub/hub-heartbeat";
import { OccupancyBoard } from "../household/occupancy/occupancy.board";
import { startKnowledgeDelivery } from "../care/services/knowledge/delivery";
import { describeAddress, HouseholdAddress, type NetworkInterfaces } from "../platform/http/household-address";
import { fanOutBus, fanOutWebApp } from "./cluster/cluster-events";
import { LocationFusion } from "../household/tracking/location-fusion";
import { CtsService } from "../household/cts/cts.service";
import { SceneSamples } from "../care/services/perception/scene-samples";
import { startDailyReports, type DailyReportJob } from "../care/services/reports";
import { startDailyHealthReport, type DailyHealthJob } from "../care/services/health-report/report-job";
import { answerHealthCommands } from "../care/services/health-report/report-commands";
import { closeIdentity } from "../household/identity/identity.service";
import { checkToolSettings } from "../care/surfaces/mcp/registry";
import { retentionPlan } from "./retention-plan";
import { startBackupJob } from "./backup/backup-job";
import { addBackupPart } from "./backup/backup-part";
import { backupBeforeUpgrade } from "./backup/backup.service";
import { startRetentionJob } from "../platform/db/retention-job";
import { startRetention } from "../platform/db/retention";
import { InputJournal, journalRetention } from "../care/core/journal/input-journal";
import { AppMetrics } from "./metrics/app-metrics";

export interface AppOptions {
  config: RunConfig;
  clock?: Clock;
  log?: Logger;
  /** Embed Node-RED (default true). */
  nodeRed?: boolean;
  /** Seed the demo household and its keys when the store is empty (default false). */
  demo?: boolean;
  /** The host's network interfaces (default `os.networkInterfaces`): tests hand in their own. */
  networkInterfaces?: () => NetworkInterfaces;
  /** The data dir's free-space reader (default statfs): tests hand in a full disk without filling one. */
  freeSpace?: FreeSpaceReader;
}

export interface CareflowApp {
  ctx: AppContext;
  /** The engine itself (benchmarks and tests reach its internals; services see `ctx.engine`). */
  engine?: PipelineEngine;
  /** The triggers that fire rules on their own (tests wait on their idle()); with the engine. */
  triggers?: RunningTriggers;
  server: http.Server;
  /** The camera aggregator and the device endpoints (tests and benchmarks wait on them). */
  devices: { aggregator: FrameAggregator; endpoints: DeviceEndpoints };
  /** The location state's fusion of sightings and presence sensors (tests wait on it). */
  tracking: LocationFusion;
  /** The continuous-tracking streams (tests wait on them and read their counters). */
  cts: CtsService;
  /** Scene samples on their way to semantic memory (tests wait on them). */
  sceneSamples: SceneSamples;
  /** The daily reports' midnight job (tests wait on it). */
  reports: DailyReportJob;
  /** The family's daily health message (tests wait on it). */
  dailyHealth: DailyHealthJob;
  /** The care services node handlers, filters and escalation are given (built once, here). */
  services: CareServices;
  /** The app's one escalation (tests wait on its settled() after moving the clock). */
  escalation: EscalationHandle;
  /** True when this start seeded the demo household. */
  demoSeeded: boolean;
  listen(port?: number, host?: string): Promise<number>;
  close(): Promise<void>;
}

/** The settings with the demo keys (made now on a first start) added to the key lists. */
function withDemoKeys(settings: Settings, dataDir: string, empty: boolean): Settings {
  const keys = readDemoKeys(dataDir) ?? (empty ? createDemoKeys(dataDir) : undefined);
  if (!keys) return settings;
  const known = new Set([...settings.auth.api_keys, ...settings.auth.device_keys].map((k) => k.key));
  const taken = new Set(settings.auth.device_keys.map((d) => d.sensor_id));
  return {
    ...settings,
    auth: {
      ...settings.auth,
      api_keys: [...settings.auth.api_keys, ...keys.api_keys.filter((k) => !known.has(k.key))],
      device_keys: [...settings.auth.device_keys, ...keys.device_keys.filter((k) => !known.has(k.key) && !taken.has(k.sensor_id))],
    },
  };
}

export async function createApp(opts: AppOptions): Promise<CareflowApp> {
  const { config } = opts;
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? createLogger(config.settings.app.log_level);
  const useNodeRed = opts.nodeRed !== false;
  // Tool names in mcp.tools / mcp.voice_tools are checked before anything starts.
  checkToolSettings(config.settings.mcp);
  checkLayouts(config.settings);
  // Several instances cannot share a SQLite file: refused before the store is opened.
  checkClusterStore(config.settings, storeConfig(config.databaseUrl, config.dataDir).dialect);
  const lifecycle = new Lifecycle(log);
  const backupParts = { clock, log, settings: config.settings, settingsFile: config.settingsFile, dataDir: config.dataDir };
  const store = await openStore(config.databaseUrl, config.dataDir, {
    log,
    // An upgrade of a household's store is backed up first (docs/upgrades.md).
    beforeUpgrade: config.settings.backup.before_upgrade ? (db, dialect) => backupBeforeUpgrade(backupParts, db, dialect) : undefined,
  });
  lifecycle.add("store", () => store.close());

  // Settings and keys are final before anything uses them: the demo's keys are added here.
  const empty = opts.demo ? await isStoreEmpty(store.db) : false;
  const settings = opts.demo ? withDemoKeys(structuredClone(config.settings), config.dataDir, empty) : structuredClone(config.settings);
  // Keys made while the service runs are looked up in the store, so every instance sees them at once.
  const keys = new KeyStore(settings.auth.api_keys, settings.auth.device_keys, managedKeyLookup(store.db, clock, log));

  // The one rule validator, with the household and settings of this app.
  const deployCheck: DeployChecker = async (flows, previous) => checkDeploy(flows, previous, await readHouseholdNames(ctx), settings);
  // The engine needs Node-RED, which needs the context: the context reads it when asked. With
  // several instances, deploys stored here are announced and the others' run here (once Node-RED runs).
  const late: LateParts = {};
  const ctx: AppContext = {
    db: store.db,
    dialect: store.dialect,
    clock,
    log,
    settings,
    settingsFile: config.settingsFile,
    keys,
    webapp: new WebAppHub(
      () => keys,
      log,
      () => settings.websocket,
      clock,
    ),
    bus: new EventBus(),
    dataDir: config.dataDir,
    work: newCareWork(),
    startedAt: clock.now(),
    address: new HouseholdAddress(() => settings.app.public_url, opts.networkInterfaces),
    flows: new FlowWriter(
      store.db,
      useNodeRed
        ? {
            // A rule write starts from the stored flows, even if another instance deployed a moment ago.
            read: async () => {
              await late.deploys?.catchUp();
              return nodeRedHost.getFlows();
            },
            running: () => nodeRedHost.getFlows(),
            deploy: (flows, rev) => nodeRedHost.setFlows(flows, rev),
          }
        : announcing(
            directFlowSource(
              store.db,
              () => isoNow(clock),
              (flows, previous) => deployCheck(flows, previous),
            ),
            () => late.deploys?.announce(),
          ),
      (flows, previous) => deployCheck(flows, previous),
    ),
    get engine() {
      return late.engine;
    },
    get firer() {
      return late.engine;
    },
  };
  // What node handlers, filters, escalation and the open-alert replay are given: built once here.
  const services = careServices(ctx);
  await startWebAppSocket(ctx, lifecycle, services);

  await checkMediaStore(ctx);
  // The leases of the singular jobs started below (one instance: all held, nothing written).
  const cluster = await startCluster(ctx);
  ctx.cluster = cluster;
  lifecycle.add("cluster", () => cluster.stop());
  // Every instance's web app clients see every popup, prompt and alert; the bus topics that cross do.
  if (cluster.enabled) {
    lifecycle.add("cluster: web app frames", fanOutWebApp(ctx.webapp, cluster.link, clock));
    lifecycle.add("cluster: bus events", fanOutBus(ctx.bus, cluster.link));
  }

  if (empty) await seedDemoHousehold(ctx);
  await upsertDeviceSensors(ctx, settings.auth.device_keys);
  // The default card's background is an image in the media store: a store that is down
  // leaves the template to the first card that needs it (template-resolve.ts) rather than
  // stopping this start.
  await ensureDefaultTemplate(ctx).catch((err: unknown) => {
    if (!(err instanceof ServiceUnavailableError)) throw err;
    log.warn(`e-ink: the default template waits for the media store (${err.message}); the first card that needs it makes it`);
  });

  // GET /metrics (docs/metrics.md): its bus listeners first, so no alert raised from here on is missed.
  const metrics = new AppMetrics(ctx);
  lifecycle.add("metrics", () => metrics.stop());
  const escalation = startEscalation(ctx, { services });
  lifecycle.add("escalation", () => escalation.stop());
  lifecycle.add("alert updates", forwardAlertUpdates(ctx));
  // One sweep of the shared rows and media for all instances: the `media-sweep` lease holder's.
  lifecycle.add(
    "media sweep",
    whileHolding(cluster.leases, "media-sweep", () => startMediaSweep(ctx, { clustered: cluster.enabled })),
  );
  // The face engine's worker thread starts at its first use; stopped here if it did.
  lifecycle.add("face engine", () => closeIdentity(ctx));
  // Every input a rule could see, recorded for rehearsal before any input can arrive (and
  // stopped after them all, so the last ones are written).
  if (settings.journal.enabled) {
    const journal = new InputJournal(ctx);
    journal.start();
    ctx.journal = journal;
    metrics.queues.add("input_journal", () => journal.queued);
    lifecycle.add("input journal", () => journal.stop());
    lifecycle.add("input journal retention", startRetention(ctx, journalRetention(ctx)));
  }
  await ensureDevicesTab(ctx.db);
  const aggregator = new FrameAggregator(ctx);
  lifecycle.add("camera aggregator", () => aggregator.stop());
  const deviceEndpoints = new DeviceEndpoints(log);
  const occupancy = new OccupancyBoard(ctx);
  lifecycle.add("occupancy", occupancy.start());
  // The home hub, when configured: its sensors publish on the bus, locations go back to it.
  const hub = await startHomeHub(ctx, lifecycle, cluster);
  // The family's chat: alerts out, buttons, replies and commands in (long polling unless webhook mode).
  const chat = startChat(ctx);
  ctx.chat = chat;
  lifecycle.add("chat", () => chat.stop());
  const tracking = new LocationFusion(ctx);
  tracking.start();
  lifecycle.add("location fusion", async () => {
    tracking.stop();
    await tracking.idle();
  });
  // The continuous-tracking streams (cts.enabled): connecting never holds the start.
  const cts = new CtsService(ctx, tracking);
  cts.start();
  metrics.queues.add("tracking", () => cts.queueDepths());
  lifecycle.add("continuous tracking", () => cts.stop());
  // Scene samples: keyframe fetched, analysed, kept in semantic memory (stopped before tracking).
  const sceneSamples = new SceneSamples(ctx);
  sceneSamples.start();
  metrics.queues.add("scene_samples", () => sceneSamples.status().queued);
  lifecycle.add("scene samples", () => sceneSamples.stop());
  // Each member's report of the day that ended, stored at local midnight (and the missed ones at start).
  const reports = startDailyReports(ctx);
  lifecycle.add("daily reports", () => reports.stop());
  // Every part's state (issue 44): devices, links, the database, the disk, the event loop.
  const parts = startParts(ctx, { hub, chat, cts: () => cts.health(), freeSpace: opts.freeSpace });
  ctx.parts = parts.board;
  lifecycle.add("parts", parts.stop);
  // The family's daily health message at health.daily_report_at, and /health, /daily in the chat.
  answerHealthCommands(ctx, chat);
  const dailyHealth = startDailyHealthReport(ctx, chat);
  lifecycle.add("daily health message", () => dailyHealth.stop());
  // careflow's own sign of life on the hub, for the family's phones when it stops (docs/hub.md).
  hub.whenClient((client) => lifecycle.add("hub heartbeat", startHubHeartbeat(ctx, client)));

  // The MCP server and the voice companion.
  const { mcp, voice } = startAgents(ctx, lifecycle, occupancy);
  // Nothing grows without bound: every growing table pruned hourly by its `retention.*` days (docs/retention.md).
  const retention = startRetentionJob(ctx, () => retentionPlan(ctx));
  lifecycle.add("retention", () => retention.stop());
  // Backups at backup.schedule under the lease `backup`, and their part on the board (docs/backups.md).
  const backups = startBackupJob(ctx);
  lifecycle.add("backups", () => backups.stop());
  if (ctx.parts) addBackupPart(ctx, ctx.parts);
  // The knowledge repository's chunks get their vectors in the background (knowledge.embedding_model).
  lifecycle.add("knowledge embedding", startKnowledgeIndexing(ctx));

  const { app, throttle } = httpApp(ctx, {
    useNodeRed,
    lifecycle,
    metrics,
    deviceEndpoints,
    occupancy,
    hub,
    cts,
    sceneSamples,
    mcp,
    voice,
    chat,
  });
  const server = createExpressServer(app);
  answerClientErrors(server, log);
  let feed: PipelineFeed | undefined;
  let triggers: RunningTriggers | undefined;
  // Upgraded sockets (/ws, /ws/pipeline, the editor's comms) are no longer the HTTP server's
  // connections: closing the server waits for them, so it ends them itself (a web app that
  // stays connected must not hold a shutdown for minutes).
  const upgraded = new Set<Duplex>();
  server.on("upgrade", (req, socket, head) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    if (refusedUpgrade(throttle, req, socket)) return;
    if (feed?.handleUpgrade(req, socket, head, throttle)) return;
    if (ctx.webapp.handleUpgrade(req, socket, head, throttle)) return;
    if (useNodeRed && nodeRedHost.handleUpgrade(req, socket, head)) return;
    socket.destroy();
  });

  if (useNodeRed) {
    const running = await startRulesEngine(ctx, {
      config,
      lifecycle,
      services,
      deployCheck,
      cluster,
      metrics,
      devices: { aggregator, endpoints: deviceEndpoints },
      late,
    });
    triggers = running.triggers;
    feed = running.feed;
  }
  // Batches a killed process left open resume once the triggers listen: one whose window passed
  // while the service was down flushes at once, and its rule must hear it.
  await aggregator.start();
  // Cards and quizzes on the web app; open quiz sessions' timeouts armed again.
  lifecycle.add("knowledge delivery", startKnowledgeDelivery(ctx));
  if (empty) {
    await importExampleRules(ctx);
    await seedDemoKnowledge(ctx).catch((err) => log.warn({ err }, "demo knowledge not seeded"));
  }
  // The server closes first: no new requests reach parts that are stopping.
  lifecycle.add("http server", () => closeServer(server, upgraded));

  return {
    ctx,
    engine: late.engine,
    triggers,
    server,
    devices: { aggregator, endpoints: deviceEndpoints },
    tracking,
    cts,
    sceneSamples,
    reports,
    dailyHealth,
    services,
    escalation,
    demoSeeded: empty,
    listen: (port = 0, host?: string) =>
      new Promise<number>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          const listening = (server.address() as AddressInfo).port;
          ctx.address?.listening(listening);
          // Said at every start: where the tablet's link and the speakers' audio point.
          const address = ctx.address?.current();
          const said = address && { address: address.base, source: address.source };
          if (address?.source === "loopback") log.warn(said, describeAddress(address));
          else if (address) log.info(said, describeAddress(address));
          resolve(listening);
        });
      }),
    close: () => lifecycle.stop(),
  };
}

/** A flow source whose deploys are announced to the other instances once stored. */
function announcing(source: FlowSource, announce: () => void): FlowSource {
  return {
    read: () => source.read(),
    deploy: async (flows, rev) => {
      await source.deploy(flows, rev);
      announce();
    },
  };
}

function closeServer(server: http.Server, upgraded: Set<Duplex>): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
    for (const socket of upgraded) socket.destroy();
  });
}
