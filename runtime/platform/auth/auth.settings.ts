/** The `auth` settings section: API keys, device keys and the throttle on wrong keys. */
import { z } from "zod";

export const ROLE_NAMES = ["admin", "caregiver", "mcp_readonly", "webapp", "metrics"] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

const apiKey = z
  .object({
    key: z.string().min(8, "an API key needs at least 8 characters"),
    name: z.string().min(1),
    permissions: z.array(z.string().min(1)).min(1),
  })
  .strict();

export const DEVICE_TYPES = ["camera_device", "terminal", "display"] as const;

const deviceKey = z
  .object({
    key: z.string().regex(/^[A-Z0-9]{8}$/, "a device key is 8 uppercase letters or digits"),
    sensor_id: z.string().min(1),
    device_type: z.enum(DEVICE_TYPES),
    permissions: z.array(z.string().min(1)).default([]),
    name: z.string().optional(),
    /** Minutes between the device's calls: late after one, silent after three; null: none (docs/health.md). */
    expect_every_minutes: z.number().positive().nullable().optional(),
  })
  .strict();

export const authSettings = z
  .object({
    api_keys: z.array(apiKey).default([]),
    device_keys: z.array(deviceKey).default([]),
    // Wrong keys and editor passwords per client address before it must wait (429).
    throttle: z
      .object({
        max_failures: z.number().int().positive().default(10),
        window_seconds: z.number().positive().default(60),
        block_seconds: z.number().positive().default(30),
        max_block_seconds: z.number().positive().default(900),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});
