/**
 * Starts the real app on port 0 with a fresh database and known keys, and talks to it
 * over real HTTP.
 */
import type { SettingsInput } from "../../settings";
import { createApp, type CareflowApp } from "../../runtime/app/app";
import { buildSettings, readSettingsFile } from "../../runtime/platform/config/load-settings";
import type { Clock } from "../../runtime/platform/core/clock";
import type { NetworkInterfaces } from "../../runtime/platform/http/household-address";
import type { FreeSpaceReader } from "../../runtime/platform/health/gauges";
import { createLogger, type Logger } from "../../runtime/platform/core/logger";
import { migratedDatabase, type TestDatabase } from "./test-db";

export const KEYS = {
  admin: "test-admin-key-0001",
  caregiver: "test-caregiver-key-01",
  mcp: "test-mcp-key-000001",
  webapp: "test-webapp-key-0001",
  camera: "CAM00001",
  display: "DISP0001",
  terminal: "TERM0001",
} as const;

/**
 * A key with only the `metrics` role (a Prometheus scraper). Not among `testAuthSettings`, so the
 * other tests' key lists stay as they were: the tests that need it add `metricsKeySetting()`.
 */
export const METRICS_KEY = "test-metrics-key-0001";
export const metricsKeySetting = () => ({ key: METRICS_KEY, name: "test metrics", permissions: ["metrics"] });

export const testAuthSettings = (): NonNullable<SettingsInput["auth"]> => ({
  api_keys: [
    { key: KEYS.admin, name: "test admin", permissions: ["admin"] },
    { key: KEYS.caregiver, name: "test caregiver", permissions: ["caregiver"] },
    { key: KEYS.mcp, name: "test mcp", permissions: ["mcp_readonly"] },
    { key: KEYS.webapp, name: "test web app", permissions: ["webapp"] },
  ],
  device_keys: [
    { key: KEYS.camera, sensor_id: "kitchen_cam", device_type: "camera_device", permissions: ["device:camera"] },
    { key: KEYS.display, sensor_id: "hall_display", device_type: "display", permissions: ["image:read"] },
    { key: KEYS.terminal, sensor_id: "bedside_terminal", device_type: "terminal", permissions: ["device:terminal", "image:read"] },
  ],
});

export interface TestAppOptions {
  settings?: SettingsInput;
  clock?: Clock;
  nodeRed?: boolean;
  demo?: boolean;
  log?: Logger;
  /** The host's network interfaces as the app sees them (default: the machine's own). */
  networkInterfaces?: () => NetworkInterfaces;
  /** The data dir's free-space reader (default statfs): a full disk without filling one. */
  freeSpace?: FreeSpaceReader;
  /** Started as with CAREFLOW_SETTINGS: the file's settings (under `settings`), and the file kept for reloads. */
  settingsFile?: string;
  /** A database to start on (a restart of an earlier app): kept on close, the caller drops it. */
  database?: TestDatabase;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: CareflowApp;
  baseUrl: string;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** Shorthands with the admin key. */
  get<T = any>(path: string, key?: string | null): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, key?: string | null): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = opts.database ?? (await migratedDatabase());
  const fromFile = opts.settingsFile ? (readSettingsFile(opts.settingsFile) as SettingsInput) : {};
  // No scheduled backups unless a test asks (a clock moved over days would back up each night).
  const settings = buildSettings({ auth: testAuthSettings(), backup: { schedule: null }, ...fromFile, ...opts.settings });
  const app = await createApp({
    config: { port: 0, dataDir: db.dataDir, databaseUrl: db.databaseUrl, settingsFile: opts.settingsFile, settings },
    clock: opts.clock,
    log: opts.log ?? createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent"),
    nodeRed: opts.nodeRed ?? false,
    demo: opts.demo ?? false,
    networkInterfaces: opts.networkInterfaces,
    freeSpace: opts.freeSpace,
  });
  const port = await app.listen(0, "127.0.0.1");
  const baseUrl = `http://127.0.0.1:${port}`;

  const request = async <T>(method: string, path: string, o: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const key = o.key === undefined ? KEYS.admin : o.key;
    if (key !== null) headers["x-api-key"] = key;
    let body: string | Buffer | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };

  return {
    app,
    baseUrl,
    request,
    get: (path, key) => request("GET", path, { key }),
    post: (path, body, key) => request("POST", path, { key, body }),
    close: async () => {
      await app.close();
      if (!opts.database) await db.drop();
    },
  };
}
