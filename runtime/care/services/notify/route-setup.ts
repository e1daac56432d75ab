/**
 * Whether a notification route is set up for a send, and which part of the parts board
 * (platform/health) carries it. The fallback skips routes that are not set up (trying them
 * would only say so), and a route that was set up and still failed marks its part down.
 */
import type { CareContext } from "../../core/context";
import { listSensors } from "../../../household/sensors/sensors.service";
import type { NotificationPlan } from "./plan";
import { chatTargets } from "../chat/relatives.service";
import { HUB_NOTIFY } from "../../core/language/channel-names";

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** Set up enough that trying it means something: a token and a chat for the level, a URL, a speaker, a screen. */
export async function routeConfigured(ctx: CareContext, plan: NotificationPlan, route: string): Promise<boolean> {
  const s = ctx.settings;
  const hubSpeaker = !!s.hub.url && !!(text(plan.options.hub_media_player) ?? s.hub.media_player ?? Object.keys(s.hub.speakers).length);
  switch (route) {
    case "chat_app": {
      const targets = (await chatTargets(ctx)).filter((t) => !t.alert_levels.length || t.alert_levels.includes(plan.alert_level));
      return !!s.notifications.chat_app.token && targets.length > 0;
    }
    case HUB_NOTIFY:
      return !!s.hub.url && !!s.notifications.fallback.hub_notify_service;
    case "webhook":
      return !!(text(plan.options.webhook_url) ?? s.notifications.webhook.url);
    case "hub_speaker_tts":
    case "tts":
      return hubSpeaker;
    case "eink": {
      if (s.notifications.eink.default_targets.length || (Array.isArray(plan.options.eink_targets) && plan.options.eink_targets.length)) return true;
      return (await listSensors(ctx, { sensor_type: "eink" })).length > 0;
    }
    case "pwa_popup_text":
    case "announcement":
    case "pwa_realtime_ai":
      // The tablet: set up once a web-app key exists, whether or not it is open right now.
      return s.auth.api_keys.some((k) => k.permissions.includes("webapp"));
    default:
      return false;
  }
}

export interface RoutePart {
  id: string;
  /**
   * The part has its own watcher (the Bot API client's answers, the hub's socket, the tablets on
   * `/ws`): a failed send marks it down only when the watcher already finds it unreachable, since
   * a refusal about a target (a chat not found, a notify service the hub lacks) is not the part's.
   */
  watched: boolean;
}

/**
 * The part a route's failure says something about. Speech is left out: a speaker that stayed
 * silent may be the TTS service's fault as much as the hub's, and its receipt says which.
 */
const PART_OF: Readonly<Record<string, RoutePart>> = {
  chat_app: { id: "chat", watched: true },
  [HUB_NOTIFY]: { id: "hub", watched: true },
  webhook: { id: "webhook", watched: false },
  pwa_popup_text: { id: "tablet", watched: true },
  announcement: { id: "tablet", watched: true },
  pwa_realtime_ai: { id: "tablet", watched: true },
};

export const partOf = (route: string): RoutePart | undefined => PART_OF[route];
