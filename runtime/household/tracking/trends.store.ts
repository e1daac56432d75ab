/** Room-level object-trend state (clutter, severity) as semantic memory last reported it. */
import type { Knex } from "knex";

export interface RoomTrend {
  room_id: string;
  room_name: string | null;
  overall_severity: string;
  clutter_score: number | null;
  trend_direction: string | null;
  updated_at: string;
}

interface TrendRow extends Omit<RoomTrend, "clutter_score"> {
  clutter_score: number | string | null;
}

/** Every room's trend; a household has few rooms, so callers pick theirs in memory. */
export async function listRoomTrends(db: Knex): Promise<RoomTrend[]> {
  const rows: TrendRow[] = await db<TrendRow>("room_trends").select("*").orderBy("room_id");
  return rows.map((r) => ({ ...r, clutter_score: r.clutter_score === null ? null : Number(r.clutter_score) }));
}
