/**
 * Keys for the demo household, made once on first start and kept in
 * `<data dir>/demo-keys.json` (readable by the owner only) so a newcomer can try every
 * role and device without writing a settings file first.
 */
import { randomBytes, randomInt } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ApiKeyEntry, DeviceKeyEntry } from "../../../settings";

export interface DemoKeys {
  api_keys: ApiKeyEntry[];
  device_keys: DeviceKeyEntry[];
}

export const demoKeysFile = (dataDir: string): string => path.join(dataDir, "demo-keys.json");

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const deviceKey = (): string => Array.from({ length: 8 }, () => ALNUM[randomInt(ALNUM.length)]).join("");
const apiKey = (role: string): string => `${role.slice(0, 3)}_${randomBytes(18).toString("base64url")}`;

export function readDemoKeys(dataDir: string): DemoKeys | undefined {
  const file = demoKeysFile(dataDir);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, "utf8")) as DemoKeys;
}

export function createDemoKeys(dataDir: string): DemoKeys {
  const keys: DemoKeys = {
    api_keys: [
      { key: apiKey("admin"), name: "demo admin", permissions: ["admin"] },
      { key: apiKey("caregiver"), name: "demo caregiver", permissions: ["caregiver"] },
      { key: apiKey("mcp"), name: "demo mcp", permissions: ["mcp_readonly"] },
      { key: apiKey("webapp"), name: "demo web app", permissions: ["webapp"] },
    ],
    device_keys: [
      { key: deviceKey(), sensor_id: "kitchen_cam", device_type: "camera_device", permissions: ["device:camera"], name: "Kitchen camera" },
      { key: deviceKey(), sensor_id: "hallway_display", device_type: "display", permissions: ["image:read"], name: "Hallway e-ink display" },
      { key: deviceKey(), sensor_id: "bedside_terminal", device_type: "terminal", permissions: ["device:terminal", "image:read"], name: "Bedside terminal" },
    ],
  };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(demoKeysFile(dataDir), JSON.stringify(keys, null, 2) + "\n", { mode: 0o600 });
  return keys;
}
