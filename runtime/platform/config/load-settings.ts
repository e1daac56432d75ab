/**
 * The run contract: PORT, CAREFLOW_DATA_DIR, DATABASE_URL, CAREFLOW_SETTINGS (JSON or
 * YAML, merged over the defaults of settings.ts), and CAREFLOW_ADMIN_KEY /
 * CAREFLOW_CAREGIVER_KEY / CAREFLOW_MCP_KEY (and CAREFLOW_HUB_TOKEN, the hub's token; CAREFLOW_REALTIME_API_KEY, the voice model's; CAREFLOW_CHAT_TOKEN, the chat bot's; CAREFLOW_MEDIA_STORE_URL, the S3 media store with its credentials). Invalid settings stop the service with a
 * message that names the bad key.
 */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { settingsSchema, storeUrlProblem, type ApiKeyEntry, type DeviceKeyEntry, type Settings } from "../../../settings";
import { describeIssue } from "../core/validation";

export class SettingsError extends Error {}

export interface RunConfig {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  settingsFile: string | undefined;
  settings: Settings;
}

export interface ExtraKeys {
  api_keys?: ApiKeyEntry[];
  device_keys?: DeviceKeyEntry[];
}

export function readSettingsFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new SettingsError(`CAREFLOW_SETTINGS: cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    throw new SettingsError(`CAREFLOW_SETTINGS: ${file} does not parse: ${(err as Error).message}`);
  }
}

const ENV_KEYS: Array<{ env: string; role: string }> = [
  { env: "CAREFLOW_ADMIN_KEY", role: "admin" },
  { env: "CAREFLOW_CAREGIVER_KEY", role: "caregiver" },
  { env: "CAREFLOW_MCP_KEY", role: "mcp_readonly" },
  { env: "CAREFLOW_WEBAPP_KEY", role: "webapp" },
];

export function envApiKeys(env: NodeJS.ProcessEnv): ApiKeyEntry[] {
  return ENV_KEYS.filter(({ env: name }) => env[name]).map(({ env: name, role }) => ({
    key: env[name] as string,
    name: `${role} (${name})`,
    permissions: [role],
  }));
}

/** Validate raw settings (from a file or a test), adding keys from the environment or demo. */
export function buildSettings(raw: unknown, extra: ExtraKeys = {}): Settings {
  if (raw !== undefined && raw !== null && (typeof raw !== "object" || Array.isArray(raw))) {
    throw new SettingsError("settings: the top level must be an object");
  }
  const input = structuredClone((raw ?? {}) as Record<string, unknown>);
  const result = settingsSchema.safeParse(input);
  if (!result.success) {
    throw new SettingsError(`Invalid settings: ${result.error.issues.map(describeIssue).join("; ")}`);
  }
  const settings = result.data;
  settings.auth.api_keys.push(...(extra.api_keys ?? []));
  settings.auth.device_keys.push(...(extra.device_keys ?? []));
  assertUniqueKeys(settings);
  return settings;
}

function assertUniqueKeys(settings: Settings): void {
  const seen = new Set<string>();
  for (const k of [...settings.auth.api_keys, ...settings.auth.device_keys]) {
    if (seen.has(k.key)) throw new SettingsError(`Invalid settings: auth: the key of '${"name" in k && k.name ? k.name : ""}' is used twice`);
    seen.add(k.key);
  }
  const sensors = new Set<string>();
  for (const d of settings.auth.device_keys) {
    if (sensors.has(d.sensor_id)) throw new SettingsError(`Invalid settings: auth.device_keys: sensor_id '${d.sensor_id}' has two device keys`);
    sensors.add(d.sensor_id);
  }
}

export function loadRunConfig(env: NodeJS.ProcessEnv, extra: ExtraKeys = {}): RunConfig {
  const portText = env.PORT ?? "8080";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SettingsError(`PORT: '${portText}' is not a port number`);
  const dataDir = path.resolve(env.CAREFLOW_DATA_DIR || "./data");
  const settingsFile = env.CAREFLOW_SETTINGS || undefined;
  const raw = settingsFile ? readSettingsFile(settingsFile) : {};
  const settings = buildSettings(raw, {
    api_keys: [...envApiKeys(env), ...(extra.api_keys ?? [])],
    device_keys: extra.device_keys,
  });
  // The hub's token is a secret: an environment variable keeps it out of the settings file.
  if (env.CAREFLOW_HUB_TOKEN && !settings.hub.token) settings.hub.token = env.CAREFLOW_HUB_TOKEN;
  if (env.CAREFLOW_REALTIME_API_KEY && settings.llm.realtime && !settings.llm.realtime.api_key) settings.llm.realtime.api_key = env.CAREFLOW_REALTIME_API_KEY;
  // So is the chat bot's.
  if (env.CAREFLOW_CHAT_TOKEN && !settings.notifications.chat_app.token) settings.notifications.chat_app.token = env.CAREFLOW_CHAT_TOKEN;
  // And the media store's URL, which carries the store's secret key.
  if (env.CAREFLOW_MEDIA_STORE_URL && !settings.media.store_url) {
    const problem = storeUrlProblem(env.CAREFLOW_MEDIA_STORE_URL);
    if (problem) throw new SettingsError(`Invalid settings: CAREFLOW_MEDIA_STORE_URL: ${problem}`);
    settings.media.store_url = env.CAREFLOW_MEDIA_STORE_URL;
  }
  return { port, dataDir, databaseUrl: env.DATABASE_URL || undefined, settingsFile, settings };
}
