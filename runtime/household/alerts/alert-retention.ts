/**
 * Alerts as retention prunes them (`retention.alerts_days`, docs/retention.md): only an alert
 * someone resolved, raised and resolved before the cutoff; an alert nobody has acknowledged
 * stays, however old. With it go what only it holds: its actions (acknowledgements), its
 * history (every send and delivery, the chat messages' refs) and the screens' dismissals.
 * Deleted here rather than by the foreign keys' cascade, which the data of a SQLite store
 * made before the keys were on would not do. The objects its image named are answered for
 * the media store.
 */
import type { Knex } from "knex";
import { objectNamesIn } from "../media/media.service";

interface PrunedAlert {
  id: number | string;
  image_url: string | null;
}

/** Deletes at most `limit` resolved alerts raised and resolved before the cutoff; answers how many and the objects they named. */
export async function pruneAlertsBefore(db: Knex, cutoffIso: string, limit: number): Promise<{ rows: number; media: string[] }> {
  const alerts: PrunedAlert[] = await db("alerts")
    .where({ resolved: true })
    .where("timestamp", "<", cutoffIso)
    .whereNotNull("resolved_at")
    .where("resolved_at", "<", cutoffIso)
    .select("id", "image_url")
    .limit(limit);
  if (alerts.length === 0) return { rows: 0, media: [] };
  const ids = alerts.map((a) => a.id);
  const rows = await db.transaction(async (trx) => {
    await trx("alert_history").whereIn("alert_id", ids).delete();
    await trx("alert_actions").whereIn("alert_id", ids).delete();
    await trx("popup_dismissals").whereIn("alert_id", ids).delete();
    const n: number = await trx("alerts").whereIn("id", ids).where({ resolved: true }).delete();
    return n;
  });
  return { rows, media: [...new Set(alerts.flatMap((a) => objectNamesIn(a.image_url)))] };
}

/** Which of `names` an alert still in the store names (its image). */
export async function objectsNamedByAlerts(db: Knex, names: readonly string[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (const n of names) if (await db("alerts").where("image_url", "like", `%${n}%`).first("id")) named.add(n);
  return named;
}
