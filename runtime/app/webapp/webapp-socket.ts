/**
 * The senior's web app socket (`/ws`) as the app starts it: closed with the app and for a
 * revoked key wherever it was revoked; each tablet welcomed with the household's time zone,
 * name, the Talk button when a realtime model is set, and the senior's language and words
 * (webapp-language.ts); then shown the warnings and emergencies nobody has taken on yet.
 */
import type { AppContext } from "../context";
import type { Lifecycle } from "../../platform/core/lifecycle";
import type { CareServices } from "../../../nodes/_kit/care-services";
import { realtimeConfigured } from "../../care/services/llm/realtime-client";
import { showOpenAlertsOnConnect } from "../../care/services/notify/alert-replay.ws";
import { watchWebAppLanguage } from "./webapp-language";

export async function startWebAppSocket(ctx: AppContext, lifecycle: Lifecycle, services: CareServices): Promise<void> {
  lifecycle.add("web app socket", () => ctx.webapp.close());
  // A revoked or rotated key's sockets close at once, wherever it was revoked (the bus crosses instances).
  lifecycle.add(
    "revoked keys' web app sockets",
    ctx.bus.subscribe("key.revoked", ({ key_id }) => ctx.webapp.closeKey(key_id), { otherInstances: true }),
  );
  // A deploy started (here, or elsewhere and run here): rule reads read the id index again.
  ctx.bus.subscribe("rules.changed", () => ctx.flows.forgetIndex());
  // The web app shows the time in the household's time zone, wherever the tablet thinks it is.
  // `voice`: a realtime model is configured, so the app offers its Talk button.
  // `language` and `messages`: the senior's language and every fixed word of the app in it (webapp-language.ts).
  const language = watchWebAppLanguage(ctx);
  await language.refresh();
  lifecycle.add("the senior's language", () => language.stop());
  ctx.webapp.onConnect((client) =>
    client.send({
      type: "welcome",
      timezone: ctx.settings.app.timezone,
      app_name: ctx.settings.app.name,
      voice: realtimeConfigured(ctx.settings),
      ...language.current(),
    }),
  );
  // Then the warnings and emergencies nobody has taken on yet, as their popups showed them.
  showOpenAlertsOnConnect(ctx, services);
}
