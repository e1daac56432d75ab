/**
 * `npm run cluster -- 3`: three careflow instances on this machine's PostgreSQL and NATS, on ports
 * 8081..8083, each with `cluster.enabled` and its own instance id. Prints each URL and the admin
 * key, streams their logs prefixed with the instance id, and stops them all on Ctrl-C.
 *
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/careflow_cluster, made
 * when missing), NATS_URL (default nats://127.0.0.1:4222), CAREFLOW_ADMIN_KEY (default a new one),
 * CLUSTER_BASE_PORT (default 8080: instance i listens on 8080 + i), CAREFLOW_DATA_DIR (default
 * ./data/cluster: each instance's data dir is a folder of it), CAREFLOW_SETTINGS (the operator's
 * settings, merged under each instance's `cluster` block), CAREFLOW_DEMO=0 (no demo household).
 */
import path from "node:path";
import { ensureDatabase, newAdminKey, startCluster, type RunningCluster } from "./cluster-launcher";
import { readSettingsFile } from "../../platform/config/load-settings";
import { EDITOR_ROOT } from "../../platform/nodered/host";

const DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/careflow_cluster";

/** A pino line as `[id] LEVEL message {rest}`: three interleaved JSON streams are hard to read. */
function readable(id: string, line: string): string {
  const levels: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
  try {
    const { level, msg, time: _time, service: _service, pid: _pid, hostname: _host, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    return `[${id}] ${levels[level as number] ?? String(level)} ${String(msg ?? "")}${extra}`;
  } catch {
    return `[${id}] ${line}`;
  }
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? "3");
  if (!Number.isInteger(count) || count < 1 || count > 20) {
    process.stderr.write(`cluster: '${process.argv[2]}' is not a number of instances (1 to 20)\n`);
    process.exit(2);
  }
  const env = process.env;
  const databaseUrl = env.DATABASE_URL || DEFAULT_DB;
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    process.stderr.write("cluster: DATABASE_URL must name a PostgreSQL database: instances cannot share a SQLite file\n");
    process.exit(2);
  }
  const basePort = Number(env.CLUSTER_BASE_PORT ?? "8080");
  const adminKey = env.CAREFLOW_ADMIN_KEY || newAdminKey();
  const settings = env.CAREFLOW_SETTINGS ? (readSettingsFile(env.CAREFLOW_SETTINGS) as Record<string, unknown>) : {};
  await ensureDatabase(databaseUrl);

  let stopping = false;
  let cluster: RunningCluster | null = null;
  const stopAll = async (why: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\ncluster: ${why}: stopping every instance\n`);
    await cluster?.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stopAll("Ctrl-C"));
  process.on("SIGTERM", () => void stopAll("SIGTERM"));

  process.stdout.write(`cluster: starting ${count} instance(s) on ${databaseUrl.replace(/\/\/[^@/]*@/, "//")}\n`);
  cluster = await startCluster({
    count,
    databaseUrl,
    natsUrl: env.NATS_URL || "nats://127.0.0.1:4222",
    basePort,
    dataRoot: path.resolve(env.CAREFLOW_DATA_DIR || "./data/cluster"),
    adminKey,
    settings,
    demo: env.CAREFLOW_DEMO !== "0",
    onLine: (id, line, stream) => (stream === "stderr" ? process.stderr : process.stdout).write(readable(id, line) + "\n"),
    onExit: (id, code, signal) => process.stdout.write(`cluster: ${id} ended (${signal ?? `exit ${code}`}); the others carry on\n`),
  });
  const lines = [
    "",
    `careflow: ${count} instance(s) on one PostgreSQL, one NATS (docs/cluster.md):`,
    ...cluster.instances.map((i) => `  ${i.id.padEnd(12)} ${i.url}   editor ${i.url}${EDITOR_ROOT}   pid ${i.pid}`),
    `  Admin key:  ${adminKey}`,
    `  Leases:     curl -H "X-API-Key: ${adminKey}" ${cluster.instances[0].url}/api/v1/admin/cluster`,
    `  Kill one:   kill -9 ${cluster.instances[0].pid}   (its leases pass to another within lease_seconds + a third)`,
    "  Ctrl-C stops them all.",
    "",
  ];
  process.stdout.write(lines.join("\n") + "\n");
}

main().catch((err) => {
  process.stderr.write(`cluster: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
