/**
 * A channel as a person names it ("Tablet popup", "Family chat", "Speaker"): the channel's
 * display name in its node spec, the one table of these names (palette, forms, run details,
 * rehearsal, warnings). Machine ids (`pwa_popup_text`) stay in the API's JSON; this is only
 * what a caregiver reads.
 */
import { registry } from "../../../../nodes/registry.generated";

/** The fallback's hub route: the hub's notify service (`notifications.fallback.hub_notify_service`) to the family's phones. */
export const HUB_NOTIFY = "hub_notify";

/** A channel type of the generated registry by its id (`pwa_popup_text`). */
export const channelOfType = (type: string) => registry.channels.find((e) => e.spec.type === type);

/** Routes that are no channel type a step picks: the fallback's (notify/fallback.ts). */
const ROUTE_NAMES: Readonly<Record<string, string>> = { [HUB_NOTIFY]: "Hub notification" };

/** "Tablet popup": at the start of a line or as a label. An unknown id is said as it is. */
export const channelName = (channel: string): string => channelOfType(channel)?.spec.displayName ?? ROUTE_NAMES[channel] ?? channel;

/** "tablet popup": inside a sentence. */
export function channelWords(channel: string): string {
  const name = channelName(channel);
  return name === channel ? name : name.charAt(0).toLowerCase() + name.slice(1);
}

/** `{pwa_popup_text: "Tablet popup", ...}` for the channels given, for a handler or a page to word its receipts. */
export const channelNames = (channels: readonly string[]): Record<string, string> => Object.fromEntries(channels.map((c) => [c, channelName(c)]));
