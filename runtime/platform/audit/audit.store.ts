/**
 * The `audit_log` table (migration 040): who (a key's name) created, changed or deleted what,
 * newest first on read. Written by the services that make the change, read by
 * `GET /api/v1/admin/audit`.
 */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../db/delete-before";

export type AuditAction = "create" | "update" | "delete" | "rotate" | "revoke";

export interface AuditEntry {
  id: number;
  at: string;
  actor: string;
  action: AuditAction;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
}

export type NewAuditEntry = Omit<AuditEntry, "id">;

const COLUMNS = ["id", "at", "actor", "action", "target_type", "target_id", "target_name"] as const;

export async function recordAudit(db: Knex, entry: NewAuditEntry): Promise<void> {
  await db("audit_log").insert(entry);
}

/** The newest `limit` entries, newest first (by id: entries of one millisecond keep their order). */
export async function listAudit(db: Knex, limit: number): Promise<AuditEntry[]> {
  const rows = await db<AuditEntry>("audit_log")
    .select(...COLUMNS)
    .orderBy("id", "desc")
    .limit(limit);
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** Retention (docs/retention.md): deletes at most `limit` entries written before the cutoff. */
export function pruneAuditBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "audit_log", `"at" < ?`, [cutoffIso], limit);
}
