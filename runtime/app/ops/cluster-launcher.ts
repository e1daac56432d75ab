/**
 * Several careflow processes on one PostgreSQL and NATS, as a provider would run them (issue 28):
 * each child is `dist/runtime/app/main.js` with its own port, data dir, settings file (the
 * operator's settings with `cluster.enabled` and a distinct `instance_id`) and the same admin key.
 * `npm run cluster -- 3` (cluster-main.ts) and the kill -9 test and bench use this one module,
 * so what the test proves is what a person starts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import knexFactory from "knex";
import { demoKeysFile } from "../demo/demo-keys";

export interface ClusterOptions {
  count: number;
  databaseUrl: string;
  natsUrl: string;
  /** Instance i listens on basePort + i (1-based); 0: any free port, read from its start line. */
  basePort: number;
  /** Each instance's data dir is `<dataRoot>/<instance id>` (its own disk, as on its own machine). */
  dataRoot: string;
  /** The admin key every instance accepts (CAREFLOW_ADMIN_KEY). */
  adminKey: string;
  /** Instance ids are `<idPrefix>-<i>`. */
  idPrefix?: string;
  leaseSeconds?: number;
  /** Settings merged under each instance's own `cluster` block (the operator's file, a test's fakes). */
  settings?: Record<string, unknown>;
  /** The first instance seeds the demo household on an empty database; the others share its keys. */
  demo?: boolean;
  /** Extra environment for every child. */
  env?: NodeJS.ProcessEnv;
  /** Every line a child writes, as it comes. */
  onLine?: (id: string, line: string, stream: "stdout" | "stderr") => void;
  /**
   * Runs once the first instance listens, before the others start: a household set up through
   * one instance (rules, rooms) is what the others load at their start.
   */
  afterFirst?: (first: ClusterInstance) => Promise<void>;
  /** A child that ends without being asked to. */
  onExit?: (id: string, code: number | null, signal: NodeJS.Signals | null) => void;
  /** How long a start may take before it counts as failed (default 60 s). */
  startTimeoutMs?: number;
}

/** dist/runtime/app/ops → dist/runtime/app/main.js */
const MAIN = path.resolve(__dirname, "../main.js");

export class ClusterInstance {
  private child: ChildProcess | null = null;
  private expectedExit = false;
  private lastLines: string[] = [];
  /** The port it listens on, known once it has started. */
  port = 0;

  constructor(
    readonly index: number,
    readonly id: string,
    readonly dataDir: string,
    private readonly settingsFile: string,
    private readonly opts: ClusterOptions,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process and resolves once it listens (its "careflow listening" log line). */
  start(demo = false): Promise<void> {
    if (this.running) return Promise.resolve();
    this.expectedExit = false;
    this.lastLines = [];
    const port = this.opts.basePort ? this.opts.basePort + this.index : 0;
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        ...this.opts.env,
        PORT: String(port),
        DATABASE_URL: this.opts.databaseUrl,
        CAREFLOW_DATA_DIR: this.dataDir,
        CAREFLOW_SETTINGS: this.settingsFile,
        CAREFLOW_ADMIN_KEY: this.opts.adminKey,
        CAREFLOW_DEMO: demo ? "1" : "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    const timeoutMs = this.opts.startTimeoutMs ?? 60_000;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      const timer = setTimeout(() => fail(`did not listen within ${timeoutMs} ms`), timeoutMs);
      const fail = (why: string) => {
        if (started) return;
        started = true;
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new Error(`${this.id} ${why}:\n${this.lastLines.join("\n")}`));
      };
      const onLine = (line: string, stream: "stdout" | "stderr") => {
        this.lastLines = [...this.lastLines.slice(-19), line];
        this.opts.onLine?.(this.id, line, stream);
        if (started || stream !== "stdout") return;
        const listening = listeningPort(line);
        if (listening === null) return;
        started = true;
        clearTimeout(timer);
        this.port = listening;
        resolve();
      };
      eachLine(child.stdout, (l) => onLine(l, "stdout"));
      eachLine(child.stderr, (l) => onLine(l, "stderr"));
      child.once("exit", (code, signal) => {
        if (!started) fail(`ended before listening (${signal ?? code})`);
        else if (!this.expectedExit) this.opts.onExit?.(this.id, code, signal);
      });
    });
  }

  /** kill -9: no clean stop, its leases pass only when they expire. */
  async kill(): Promise<void> {
    await this.end("SIGKILL");
  }

  /** A clean stop (SIGTERM): its leases are given back at once. */
  async stop(): Promise<void> {
    await this.end("SIGTERM");
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    this.expectedExit = true;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(signal);
    await exited;
  }
}

export interface RunningCluster {
  instances: ClusterInstance[];
  adminKey: string;
  /** Stops every instance cleanly (SIGTERM), all at once. */
  stop(): Promise<void>;
}

/** The database named by `url` is made when it does not exist (on its server's `postgres` database). */
export async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ""));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`DATABASE_URL: database name '${name}' must be letters, digits or '_'`);
  u.pathname = "/postgres";
  const admin = knexFactory({ client: "pg", connection: u.toString(), pool: { min: 0, max: 1 }, acquireConnectionTimeout: 5000 });
  try {
    const found = await admin.raw("select 1 from pg_database where datname = ?", [name]);
    if (found.rows.length === 0) await admin.raw(`create database "${name}"`);
  } finally {
    await admin.destroy();
  }
}

/** A fresh admin key, for a cluster whose operator named none. */
export const newAdminKey = (): string => `adm_${randomBytes(18).toString("base64url")}`;

/** Writes each instance's settings and starts them: the first alone (it migrates and seeds), then the rest together. */
export async function startCluster(opts: ClusterOptions): Promise<RunningCluster> {
  if (!Number.isInteger(opts.count) || opts.count < 1) throw new Error(`count: ${opts.count} is not a number of instances`);
  const prefix = opts.idPrefix ?? "careflow";
  const instances = Array.from({ length: opts.count }, (_, i) => {
    const id = `${prefix}-${i + 1}`;
    const dataDir = path.join(opts.dataRoot, id);
    fs.mkdirSync(dataDir, { recursive: true });
    const settingsFile = path.join(dataDir, "cluster-settings.json");
    const own = {
      ...opts.settings,
      cluster: { ...clusterPart(opts.settings), enabled: true, instance_id: id, nats_url: opts.natsUrl, lease_seconds: opts.leaseSeconds ?? 3 },
    };
    fs.writeFileSync(settingsFile, JSON.stringify(own, null, 2) + "\n", { mode: 0o600 });
    return new ClusterInstance(i + 1, id, dataDir, settingsFile, opts);
  });
  const running: RunningCluster = {
    instances,
    adminKey: opts.adminKey,
    stop: async () => {
      await Promise.all(instances.map((i) => i.stop()));
    },
  };
  try {
    // Migrations and the demo seed run once, on the first; the others find the schema made.
    await instances[0].start(opts.demo ?? false);
    await opts.afterFirst?.(instances[0]);
    const demoKeys = demoKeysFile(instances[0].dataDir);
    if (fs.existsSync(demoKeys)) for (const i of instances.slice(1)) fs.copyFileSync(demoKeys, demoKeysFile(i.dataDir));
    await Promise.all(instances.slice(1).map((i) => i.start()));
  } catch (err) {
    await running.stop();
    throw err;
  }
  return running;
}

function clusterPart(settings: Record<string, unknown> | undefined): Record<string, unknown> {
  const c = settings?.cluster;
  return c && typeof c === "object" && !Array.isArray(c) ? (c as Record<string, unknown>) : {};
}

/** The port of main.ts's "careflow listening" log line, else null. */
function listeningPort(line: string): number | null {
  if (!line.includes("careflow listening")) return null;
  try {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    return entry.msg === "careflow listening" && typeof entry.port === "number" ? entry.port : null;
  } catch {
    return null;
  }
}

function eachLine(stream: NodeJS.ReadableStream | null, fn: (line: string) => void): void {
  if (!stream) return;
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    for (const p of parts) if (p) fn(p);
  });
  stream.on("end", () => {
    if (rest) fn(rest);
  });
}
