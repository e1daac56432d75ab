/** Room-level object-trend state (clutter, severity) as semantic memory last reported it. */
import type { Knex } from "knex";
import type { RoomTrend } from "../../../vocabulary/tracking";

/** Declared once, by the care-services seam the node handlers see. */
export type { RoomTrend };

interface TrendRow extends Omit<RoomTrend, "clutter_score"> {
  clutter_score: number | string | null;
}

/** Every room's trend; a household has few rooms, so callers pick theirs in memory. */
export async function listRoomTrends(db: Knex): Promise<RoomTrend[]> {
  const rows: TrendRow[] = await db<TrendRow>("room_trends").select("*").orderBy("room_id");
  return rows.map((r) => ({ ...r, clutter_score: r.clutter_score === null ? null : Number(r.clutter_score) }));
}
