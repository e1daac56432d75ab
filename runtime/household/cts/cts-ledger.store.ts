/**
 * What the consumer remembers about messages: which were applied (checked and marked inside
 * the same transaction as their effect, so a redelivery after a crash is seen and skipped),
 * and the dead letters, kept with their bytes for a person to read.
 */
import type { Knex } from "knex";
import { insertRows } from "../../platform/db/row-insert";
import { deleteBefore } from "../../platform/db/delete-before";

/** The key as stored (the column holds 200 characters). */
export const ledgerKey = (msgKey: string): string => msgKey.slice(0, 200);

/**
 * Marks many messages applied, a few hundred per statement; returns the keys (as stored) that
 * were not marked before: only their effect should be applied. A key given twice is returned
 * once; the caller applies its first message.
 */
export async function markAppliedMany(trx: Knex, stream: string, msgKeys: readonly string[], at: string): Promise<Set<string>> {
  const fresh = new Set<string>();
  const keys = [...new Set(msgKeys.map(ledgerKey))];
  const rows = await insertRows(
    trx,
    "cts_applied",
    keys.map((msg_key) => ({ stream, msg_key, applied_at: at })),
    { onConflict: { columns: ["stream", "msg_key"], action: "ignore" }, returning: "msg_key" },
  );
  for (const r of rows) fresh.add(String(r.msg_key));
  return fresh;
}

export async function countApplied(db: Knex, stream: string): Promise<number> {
  const row = await db("cts_applied").where({ stream }).count<{ n: number | string }[]>({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

export interface DeadLetter {
  id: number;
  stream: string;
  subject: string;
  stream_seq: number;
  deliveries: number;
  reason: string;
  payload_base64: string;
  received_at: string;
}

/** Keeps a message that could not be decoded or applied; once per stream sequence. */
export async function recordDeadLetter(db: Knex, d: Omit<DeadLetter, "id">): Promise<void> {
  await db("cts_dead_letters")
    .insert({ ...d, reason: d.reason.slice(0, 2000) })
    .onConflict(["stream", "stream_seq"])
    .ignore();
}

export async function listDeadLetters(db: Knex, limit: number): Promise<DeadLetter[]> {
  const rows: DeadLetter[] = await db("cts_dead_letters").select("*").orderBy("id", "desc").limit(limit);
  return rows.map((r) => ({ ...r, id: Number(r.id), stream_seq: Number(r.stream_seq), deliveries: Number(r.deliveries) }));
}

/** Applied marks older than this are forgotten: the broker redelivers only what is unacknowledged, never days later. */
export async function forgetAppliedBefore(db: Knex, before: string, signal?: AbortSignal): Promise<number> {
  return deleteBefore(db, "cts_applied", "applied_at", before, { signal });
}
