/**
 * A web app that connects is shown the alerts still waiting for someone: each warning or
 * emergency neither resolved nor assisted whose notification went to the popup, as the popup
 * channel shows it, to that client only, except those its screen has put away. A tablet that
 * comes back after a restart or a lost Wi-Fi would otherwise show nothing until the next
 * re-send (up to 10 minutes), and nothing at all once the re-sends have run out. Nothing is
 * recorded: the family was not notified again.
 *
 * Putting a popup away (`{type: "popup_dismiss", alert_id}`, sent by the web app's OK; answered
 * `{type: "popup_dismissed", alert_id}`) is kept per screen (household/alerts/popup-dismissals):
 * that screen is not shown the alert again, neither on reconnecting nor by its re-sends, which
 * still reach every other screen and channel. The alert stays open for the family: only an
 * acknowledgement (chat, REST, MCP) closes it. Any client that may connect may send it: it
 * changes only what its own screen is shown.
 */
import { z } from "zod";
import type { CareContext } from "../../core/context";
import type { WebAppClient, WebAppFrame } from "../../../platform/ws/webapp-hub";
import { NotFoundError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { unattendedAlerts } from "../../../household/alerts/alerts.service";
import { dismissedPopups, dismissPopup, screenOf } from "../../../household/alerts/popup-dismissals.store";
import type { CareServices } from "../../../../nodes/_kit/care-services";
import { alertPlan } from "./alert-plan";
import { registeredChannel } from "./channels";
import { dispatch } from "./dispatch";

const POPUP = "pwa_popup_text";
const SHOWN_LEVELS = ["warning", "emergency"];
/** The popup channel's frame types (its `type` is the alert level). */
const POPUP_TYPES = new Set(["emergency", "warning", "info", "reminder"]);

const dismissFrame = z.object({ type: z.literal("popup_dismiss"), alert_id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }).strict();

const screen = (client: WebAppClient): string => screenOf(client.principal.name, client.tablet);

/** Called once, when the app starts. */
export function showOpenAlertsOnConnect(ctx: CareContext, services: CareServices): void {
  // Per connected client, the alerts its screen has put away: its re-sends skip that client.
  const putAway = new WeakMap<WebAppClient, Set<number>>();
  const skipPutAway = (client: WebAppClient, ids: Set<number>) => {
    putAway.set(client, ids);
    ctx.webapp.skipFor(client, (f: WebAppFrame) => POPUP_TYPES.has(f.type) && typeof f.alert_id === "number" && ids.has(f.alert_id));
  };
  ctx.webapp.onMessage("popup_dismiss", null, async (frame, client) => {
    const { alert_id } = parseInput(dismissFrame, frame);
    try {
      await dismissPopup(ctx, alert_id, screen(client));
    } catch (err) {
      // Named, so the app stops saying it again for an alert that is gone.
      if (err instanceof NotFoundError) return client.send({ type: "error", status: 404, detail: err.message, alert_id });
      throw err;
    }
    const ids = putAway.get(client) ?? new Set<number>();
    ids.add(alert_id);
    skipPutAway(client, ids);
    client.send({ type: "popup_dismissed", alert_id });
  });
  ctx.webapp.onConnect((client) =>
    showOpenAlerts(ctx, services, client, (ids) => skipPutAway(client, ids)).catch((err) =>
      ctx.log.warn({ err, caller: client.principal.name }, "web app: open alerts were not shown"),
    ),
  );
}

async function showOpenAlerts(ctx: CareContext, services: CareServices, client: WebAppClient, remember: (ids: Set<number>) => void): Promise<void> {
  const dismissed = await dismissedPopups(ctx, screen(client));
  remember(dismissed);
  const rows = (await unattendedAlerts(ctx, SHOWN_LEVELS)).filter((row) => !dismissed.has(row.id));
  if (rows.length === 0) return;
  // The popup channel itself builds the frame; its broadcast reaches this client only.
  const toClient = {
    clock: ctx.clock,
    log: ctx.log,
    signal: new AbortController().signal,
    services: { ...services, webapp: { ...services.webapp, broadcast: (frame: Parameters<WebAppClient["send"]>[0]) => (client.send(frame), 1) } },
  };
  for (const row of rows) {
    const plan = alertPlan(ctx.settings, row);
    if (!plan.channels.includes(POPUP)) continue;
    const alert = { id: row.id, escalation: row.escalation_count };
    await dispatch({ hctx: toClient, notifications: ctx.settings.notifications }, { ...plan, channels: [POPUP] }, {}, registeredChannel, null, alert);
  }
}
