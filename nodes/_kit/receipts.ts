/** What a send's delivery receipts add up to, for the notification step and escalation re-sends alike. */
import type { DeliveryReceipt } from "./handler-types";

/** The warning when a send had no channel to try (an empty channel list, a level without channels). */
export const NO_CHANNEL_WARNING = "reached no channel: no channel was configured for this notification, so nobody was told";

type Names = Readonly<Record<string, string>>;

const why = (failed: readonly DeliveryReceipt[], names: Names): string =>
  failed.map((r) => `${names[r.channel] ?? r.channel}: ${r.detail ?? "not delivered"}`).join("; ");

/**
 * The warning a send deserves: none when every channel delivered. A send with no receipt at
 * all tried no channel, which is the silent case this must never let through as a success.
 * A send that got through only on a fallback route (every channel of its own failed) warns
 * too, naming the route that carried it and what failed. Channels are named as a person reads
 * them (`names`: "Tablet popup"), by id when unnamed.
 */
export function deliveryWarning(receipts: readonly DeliveryReceipt[], names: Names = {}): string | undefined {
  if (!receipts.length) return NO_CHANNEL_WARNING;
  const own = receipts.filter((r) => !r.fallback);
  const fallbacks = receipts.filter((r) => r.fallback);
  const failed = own.filter((r) => !r.delivered);
  if (!failed.length) return undefined;
  if (own.some((r) => r.delivered)) return `not delivered by every channel (${why(failed, names)})`;
  const carrier = fallbacks.find((r) => r.delivered);
  const failedToo = fallbacks.filter((r) => !r.delivered);
  if (carrier)
    return `sent through ${names[carrier.channel] ?? carrier.channel} instead, because every other channel failed (${why([...failed, ...failedToo], names)})`;
  if (failedToo.length) return `reached nobody (${why(failed, names)}); the fallback failed too (${why(failedToo, names)})`;
  return `reached nobody (${why(failed, names)})`;
}

/** `{channel: delivered}` for the step's `notification_channels` output, fallback routes included. */
export const deliveredByChannel = (receipts: readonly DeliveryReceipt[]): Record<string, boolean> =>
  Object.fromEntries(receipts.map((r) => [r.channel, r.delivered]));
