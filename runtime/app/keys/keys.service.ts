/**
 * Keys made, rotated and revoked while the service runs (issue 43): `POST /api/v1/admin/keys`
 * and its neighbours. A key's secret is answered once, at creation or rotation, and only its
 * digest is stored (`platform/auth/managed-keys.store.ts`). Each change is written to the audit
 * log with the name of the key that made it, in the same transaction.
 */
import { z } from "zod";
import type { Knex } from "knex";
import { DEVICE_TYPES, ROLE_NAMES } from "../../../settings";
import type { PlatformContext } from "../../platform/context";
import type { Principal } from "../../platform/auth/principal";
import { digestOf } from "../../platform/auth/key-store";
import { sensorTypeForDevice } from "../../platform/auth/roles";
import {
  activeManagedKeyNamed,
  insertManagedKey,
  listManagedKeys,
  managedKeyByDigest,
  managedKeyById,
  replaceDigest,
  revokeManagedKey,
  type ManagedKeyRow,
} from "../../platform/auth/managed-keys.store";
import { recordAudit, type AuditAction } from "../../platform/audit/audit.store";
import { isoNow } from "../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../platform/core/errors";
import { NAME_KEY_TOO_LONG, nameKey, nameKeyFits } from "../../platform/core/name-key";
import { parseInput } from "../../platform/core/validation";
import { isUniqueViolation } from "../../platform/db/name-match";
import { sensorTypeOf } from "../../household/sensors/sensors.service";
import { newApiKey, newDeviceKey } from "./key-secrets";

const required = (field: string, kind: string) => ({ path: [field], message: `required for a${kind === "api" ? "n" : ""} ${kind} key` });
const notFor = (field: string, kind: string) => ({ path: [field], message: `not for a${kind === "api" ? "n" : ""} ${kind} key` });

export const keyCreateSchema = z
  .object({
    name: z.string().trim().min(1, "must not be empty").max(100).refine(nameKeyFits, NAME_KEY_TOO_LONG),
    kind: z.enum(["api", "device"]),
    role: z.enum(ROLE_NAMES).optional(),
    device_type: z.enum(DEVICE_TYPES).optional(),
    sensor_id: z.string().trim().min(1, "must not be empty").max(200).optional(),
  })
  .strict()
  .superRefine((b, issues) => {
    const add = (i: { path: string[]; message: string }) => issues.addIssue({ code: "custom", ...i });
    if (b.kind === "api") {
      if (b.role === undefined) add(required("role", b.kind));
      if (b.device_type !== undefined) add(notFor("device_type", b.kind));
      if (b.sensor_id !== undefined) add(notFor("sensor_id", b.kind));
    } else {
      if (b.role !== undefined) add(notFor("role", b.kind));
      if (b.device_type === undefined) add(required("device_type", b.kind));
      if (b.sensor_id === undefined) add(required("sensor_id", b.kind));
    }
  });

/** A managed key as listed: never its secret or digest. */
export interface ManagedKeyView {
  id: number;
  name: string;
  kind: "api" | "device";
  role: string | null;
  device_type: string | null;
  sensor_id: string | null;
  created_at: string;
  created_by: string;
  rotated_at: string | null;
  last_used_at: string | null;
  revoked: boolean;
  revoked_at: string | null;
  source: "managed";
}

/** A key of the settings file or environment: listed, never changed here. */
export interface SettingsKeyView {
  id: null;
  name: string;
  kind: "api" | "device";
  role: string | null;
  device_type: string | null;
  sensor_id: string | null;
  created_at: null;
  last_used_at: null;
  revoked: false;
  source: "settings";
  read_only: true;
}

const view = (r: ManagedKeyRow): ManagedKeyView => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  role: r.role,
  device_type: r.device_type,
  sensor_id: r.sensor_id,
  created_at: r.created_at,
  created_by: r.created_by,
  rotated_at: r.rotated_at,
  last_used_at: r.last_used_at,
  revoked: r.revoked_at !== null,
  revoked_at: r.revoked_at,
  source: "managed",
});

export async function listKeys(ctx: PlatformContext): Promise<Array<ManagedKeyView | SettingsKeyView>> {
  const settings: SettingsKeyView[] = ctx.keys.settingsKeys().map((k) => ({
    id: null,
    name: k.name,
    kind: k.kind,
    role: k.roles[0] ?? null,
    device_type: k.device_type,
    sensor_id: k.sensor_id,
    created_at: null,
    last_used_at: null,
    revoked: false,
    source: "settings",
    read_only: true,
  }));
  return [...settings, ...(await listManagedKeys(ctx.db)).map(view)];
}

/** A fresh secret of the kind that is no key yet (settings or store): a repeat is drawn again. */
async function freshSecret(ctx: PlatformContext, kind: "api" | "device"): Promise<string> {
  for (;;) {
    const key = kind === "api" ? newApiKey() : newDeviceKey();
    if (!ctx.keys.isSettingsKey(key) && !(await managedKeyByDigest(ctx.db, digestOf(key).toString("hex")))) return key;
  }
}

/** A device key's sensor must exist and be of its device's sensor type (as at startup, `device-sensors.ts`). */
async function checkSensor(ctx: PlatformContext, sensorId: string, deviceType: string): Promise<void> {
  const type = await sensorTypeOf(ctx, sensorId);
  if (type === undefined) throw new ValidationError(`sensor_id: no sensor '${sensorId}'; add it first (POST /api/v1/sensors)`);
  const wanted = sensorTypeForDevice(deviceType);
  if (type !== wanted) throw new ValidationError(`sensor_id: sensor '${sensorId}' is a ${type} sensor; a ${deviceType} key needs a ${wanted} sensor`);
}

const audit = (db: Knex, actor: Principal, action: AuditAction, row: Pick<ManagedKeyRow, "id" | "name">, at: string) =>
  recordAudit(db, { at, actor: actor.name, action, target_type: "key", target_id: String(row.id), target_name: row.name });

async function assertNameFree(ctx: PlatformContext, name: string): Promise<void> {
  const other = await activeManagedKeyNamed(ctx.db, nameKey(name));
  const settings = ctx.keys.settingsKeys().find((k) => nameKey(k.name) === nameKey(name));
  if (other) throw new ConflictError(`name: a key named '${other.name}' already exists (id ${other.id})`);
  if (settings) throw new ConflictError(`name: the settings file has a key named '${settings.name}'`);
}

export async function createKey(ctx: PlatformContext, actor: Principal, input: unknown): Promise<ManagedKeyView & { key: string }> {
  const body = parseInput(keyCreateSchema, input);
  await assertNameFree(ctx, body.name);
  if (body.kind === "device") await checkSensor(ctx, body.sensor_id!, body.device_type!);
  const key = await freshSecret(ctx, body.kind);
  const at = isoNow(ctx.clock);
  const row = {
    name: body.name,
    kind: body.kind,
    role: body.role ?? null,
    device_type: body.device_type ?? null,
    sensor_id: body.sensor_id ?? null,
    created_by: actor.name,
    created_at: at,
  };
  try {
    const id = await ctx.db.transaction(async (trx) => {
      const made = await insertManagedKey(trx, row, nameKey(body.name), digestOf(key).toString("hex"));
      await audit(trx, actor, "create", { id: made, name: body.name }, at);
      return made;
    });
    return { ...view({ ...row, id, rotated_at: null, last_used_at: null, revoked_at: null }), key };
  } catch (err) {
    // Another writer took the name at the same moment: 409, as the check would have said.
    if (isUniqueViolation(err)) await assertNameFree(ctx, body.name);
    throw err;
  }
}

async function activeKey(ctx: PlatformContext, id: number): Promise<ManagedKeyRow> {
  const row = await managedKeyById(ctx.db, id);
  if (!row) throw new NotFoundError(`Key ${id} not found`);
  return row;
}

/** A new secret for the key: the old one is refused from the next request on. */
export async function rotateKey(ctx: PlatformContext, actor: Principal, id: number): Promise<ManagedKeyView & { key: string }> {
  const row = await activeKey(ctx, id);
  if (row.revoked_at) throw new ConflictError(`Key ${id} ('${row.name}') was revoked; make a new key instead`);
  const key = await freshSecret(ctx, row.kind);
  const at = isoNow(ctx.clock);
  const done = await ctx.db.transaction(async (trx) => {
    if (!(await replaceDigest(trx, id, digestOf(key).toString("hex"), at))) return false;
    await audit(trx, actor, "rotate", row, at);
    return true;
  });
  if (!done) throw new ConflictError(`Key ${id} ('${row.name}') was revoked; make a new key instead`);
  // Its sockets were opened with the old secret: they close too, on every instance.
  ctx.bus.publish("key.revoked", { key_id: id });
  return { ...view({ ...row, rotated_at: at }), key };
}

/** Revokes the key: refused from the next request on. Revoking a revoked key changes nothing. */
export async function revokeKey(ctx: PlatformContext, actor: Principal, id: number): Promise<void> {
  const row = await activeKey(ctx, id);
  if (row.revoked_at) return;
  const at = isoNow(ctx.clock);
  await ctx.db.transaction(async (trx) => {
    if (await revokeManagedKey(trx, id, at)) await audit(trx, actor, "revoke", row, at);
  });
  ctx.bus.publish("key.revoked", { key_id: id });
}
