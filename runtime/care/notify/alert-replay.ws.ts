/**
 * A web app that connects is shown the alerts still waiting for someone: each warning or
 * emergency neither resolved nor assisted whose notification went to the popup, as the popup
 * channel shows it, to that client only. A tablet that comes back after a restart or a lost
 * Wi-Fi would otherwise show nothing until the next re-send (up to 10 minutes), and nothing at
 * all once the re-sends have run out. Nothing is recorded: the family was not notified again.
 */
import type { CareContext } from "../context";
import type { WebAppClient } from "../../platform/ws/webapp-hub";
import { unattendedAlerts } from "../../household/alerts/alerts.service";
import { handlerContext } from "../care-services";
import { alertPlan } from "./alert-plan";
import { registeredChannel } from "./channels";
import { dispatch } from "./dispatch";

const POPUP = "pwa_popup_text";
const SHOWN_LEVELS = ["warning", "emergency"];

/** Called once, when the app starts. */
export function showOpenAlertsOnConnect(ctx: CareContext): void {
  ctx.webapp.onConnect((client) => {
    void showOpenAlerts(ctx, client).catch((err) => ctx.log.warn({ err, caller: client.principal.name }, "web app: open alerts were not shown"));
  });
}

async function showOpenAlerts(ctx: CareContext, client: WebAppClient): Promise<void> {
  const rows = await unattendedAlerts(ctx, SHOWN_LEVELS);
  if (rows.length === 0) return;
  const base = handlerContext(ctx);
  // The popup channel itself builds the frame; its broadcast reaches this client only.
  const toClient = {
    ...base,
    services: { ...base.services, webapp: { ...base.services.webapp, broadcast: (frame: Parameters<WebAppClient["send"]>[0]) => (client.send(frame), 1) } },
  };
  for (const row of rows) {
    const plan = alertPlan(ctx.settings, row);
    if (!plan.channels.includes(POPUP)) continue;
    await dispatch({ hctx: toClient, notifications: ctx.settings.notifications }, { ...plan, channels: [POPUP] }, {}, registeredChannel, null, null);
  }
}
