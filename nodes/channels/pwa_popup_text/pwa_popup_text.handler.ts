import type { z } from "zod";
import { NO_WEB_APP } from "../../../vocabulary/tablet";
import type { ChannelHandler } from "../../_kit/handler-types";
import { screens } from "../../_kit/words";
import type { spec } from "./pwa_popup_text.node";

type Config = z.output<typeof spec.config>;

/**
 * Broadcasts `{type: <alert_level>, message, room, image_url?, alert_id?}` to every web app on
 * `/ws`; `alert_id` (when the send belongs to an alert) is what the screen's OK puts away.
 * Delivered when at least one client received it. No client connected is *not delivered*:
 * nobody saw the popup, and saying otherwise would hide that from the run's trace and from
 * `notification_dispatched` (the alert and its escalation still stand).
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  const frame = {
    type: message.alert_level,
    message: message.message,
    room: message.room_name,
    ...(config.include_image && message.image_url ? { image_url: message.image_url } : {}),
    ...(message.alert_id ? { alert_id: message.alert_id } : {}),
  };
  const clients = ctx.services.webapp.broadcast(frame);
  return clients > 0
    ? { channel: "pwa_popup_text", delivered: true, detail: `shown on ${screens(clients)}` }
    : { channel: "pwa_popup_text", delivered: false, detail: NO_WEB_APP };
};
