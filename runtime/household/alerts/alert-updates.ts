/**
 * Alert updates for the web app: every alert raised or acknowledged is pushed to `/ws`
 * clients as `{type: "alert_update", event: "created" | "acknowledged", alert}`, so a screen
 * showing an alarm clears it when someone else dismissed it.
 */
import type { PlatformContext } from "../../platform/context";
import { getAlert } from "./alerts.service";

export function forwardAlertUpdates(ctx: PlatformContext): () => void {
  const push = (event: "created" | "acknowledged", alertId: number) => {
    if (ctx.webapp.size === 0) return;
    getAlert(ctx, alertId)
      .then((alert) => ctx.webapp.broadcast({ type: "alert_update", event, alert }))
      .catch((err) => ctx.log.warn({ err, alert_id: alertId }, "alert update not pushed"));
  };
  const offCreated = ctx.bus.subscribe("alert.created", (e) => push("created", e.alert_id));
  const offAcked = ctx.bus.subscribe("alert.acknowledged", (e) => push("acknowledged", e.alert_id));
  return () => {
    offCreated();
    offAcked();
  };
}
