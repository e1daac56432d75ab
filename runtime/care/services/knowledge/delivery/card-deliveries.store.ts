/** The `info_card_deliveries` table: one row per card put before the senior, with each channel's receipt. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../../../platform/db/delete-before";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";

export const CARD_CHANNELS = ["pwa", "eink", "voice"] as const;
export type CardChannel = (typeof CARD_CHANNELS)[number];

export interface ChannelReceipt {
  delivered: boolean;
  detail: string;
}

export interface DeliveryRow {
  id: number;
  info_card_id: number;
  rule_id: number | null;
  execution_id: number | null;
  step_id: number | null;
  channels: CardChannel[];
  receipt: Partial<Record<CardChannel, ChannelReceipt>>;
  delivered_at: string;
  viewed_at: string | null;
  dismissed_at: string | null;
  dismissed_by: string | null;
}

const TABLE = "info_card_deliveries";
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const rowOf = (r: Record<string, unknown>): DeliveryRow => ({
  ...(r as unknown as DeliveryRow),
  id: Number(r.id),
  info_card_id: Number(r.info_card_id),
  rule_id: num(r.rule_id),
  execution_id: num(r.execution_id),
  step_id: num(r.step_id),
  channels: fromJsonText<CardChannel[]>(r.channels as string, []),
  receipt: fromJsonText<DeliveryRow["receipt"]>(r.receipt as string, {}),
});

export type NewDelivery = Omit<DeliveryRow, "id" | "viewed_at" | "dismissed_at" | "dismissed_by" | "receipt">;

export async function insertDelivery(db: Knex, d: NewDelivery): Promise<number> {
  const [row] = await db(TABLE)
    .insert({ ...d, channels: toJsonText(d.channels), receipt: "{}" })
    .returning("id");
  return typeof row === "object" ? Number((row as { id: number }).id) : Number(row);
}

export async function saveReceipt(db: Knex, id: number, receipt: DeliveryRow["receipt"]): Promise<void> {
  await db(TABLE)
    .where({ id })
    .update({ receipt: toJsonText(receipt) });
}

export async function deliveryById(db: Knex, id: number): Promise<DeliveryRow | undefined> {
  const row = await db(TABLE).where({ id }).first();
  return row ? rowOf(row) : undefined;
}

/** Sets viewed_at once (the first time a screen showed it). */
export async function markViewed(db: Knex, id: number, atIso: string): Promise<void> {
  await db(TABLE).where({ id }).whereNull("viewed_at").update({ viewed_at: atIso });
}

/** Sets dismissed_at once; false when it was dismissed already. */
export async function markDismissed(db: Knex, id: number, atIso: string, by: string): Promise<boolean> {
  const n = await db(TABLE)
    .where({ id })
    .whereNull("dismissed_at")
    .update({ dismissed_at: atIso, dismissed_by: by.slice(0, 100) });
  await db(TABLE).where({ id }).whereNull("viewed_at").update({ viewed_at: atIso });
  return Number(n) === 1;
}

/** Cards on the web app nobody dismissed, delivered since `sinceIso`, oldest first. */
export async function undismissedSince(db: Knex, sinceIso: string): Promise<DeliveryRow[]> {
  const rows = await db(TABLE)
    .whereNull("dismissed_at")
    .where("delivered_at", ">=", sinceIso)
    .orderBy([{ column: "delivered_at" }, { column: "id" }]);
  return rows.map(rowOf).filter((d) => d.receipt.pwa?.delivered === true || d.channels.includes("pwa"));
}

export async function listDeliveries(db: Knex, q: { from?: string; to?: string; limit: number; offset: number }): Promise<DeliveryRow[]> {
  const query = db(TABLE);
  if (q.from) query.where("delivered_at", ">=", q.from);
  if (q.to) query.where("delivered_at", "<", q.to);
  const rows = await query
    .orderBy([
      { column: "delivered_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .limit(q.limit)
    .offset(q.offset);
  return rows.map(rowOf);
}

/** Retention (`retention.knowledge_deliveries_days`, docs/retention.md): deletes at most `limit` deliveries made before the cutoff. */
export function pruneDeliveriesBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, TABLE, `delivered_at < ?`, [cutoffIso], limit);
}
