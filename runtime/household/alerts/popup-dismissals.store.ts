/**
 * The alert popups each screen has put away (OK on the web app; docs/webapp.md): kept in the
 * store, so a screen that reconnects, or comes back after a restart, is not shown them again.
 * A screen is a key's name with the tablet's own id (`screenOf`), so two tablets paired with
 * one key each keep their own. Putting a popup away does not touch the alert: it stays open
 * for the family until someone acknowledges it.
 */
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { NotFoundError } from "../../platform/core/errors";

type Ctx = Pick<PlatformContext, "db" | "clock">;

/** The screen a popup was put away on: the key's name, and the tablet's id when it sent one. */
export const screenOf = (keyName: string, tablet: string | null): string => `${keyName}#${tablet ?? ""}`;

/** Records that `screen` put the alert's popup away (again: no change); 404 for an unknown alert. */
export async function dismissPopup(ctx: Ctx, alertId: number, screen: string): Promise<void> {
  const alert = await ctx.db("alerts").where({ id: alertId }).first("id");
  if (!alert) throw new NotFoundError(`alert_id: no alert ${alertId}`);
  await ctx
    .db("popup_dismissals")
    .insert({ alert_id: alertId, screen, dismissed_at: isoNow(ctx.clock) })
    .onConflict(["alert_id", "screen"])
    .ignore();
}

/** The open alerts (not resolved) whose popups `screen` has put away. */
export async function dismissedPopups(ctx: Ctx, screen: string): Promise<Set<number>> {
  const rows = await ctx
    .db("popup_dismissals as d")
    .join("alerts as a", "a.id", "d.alert_id")
    .where({ "d.screen": screen, "a.resolved": false })
    .select<Array<{ alert_id: number }>>("d.alert_id");
  return new Set(rows.map((r) => Number(r.alert_id)));
}
