/** What a send's delivery receipts add up to, for the notification step and escalation re-sends alike. */
import type { DeliveryReceipt } from "./handler-types";

/** The warning a send deserves: none when every channel delivered. */
export function deliveryWarning(receipts: readonly DeliveryReceipt[]): string | undefined {
  const failed = receipts.filter((r) => !r.delivered);
  if (!failed.length) return undefined;
  const why = failed.map((r) => `${r.channel}: ${r.detail ?? "not delivered"}`).join("; ");
  return receipts.some((r) => r.delivered) ? `not delivered by every channel (${why})` : `reached nobody (${why})`;
}

/** `{channel: delivered}` for the step's `notification_channels` output. */
export const deliveredByChannel = (receipts: readonly DeliveryReceipt[]): Record<string, boolean> =>
  Object.fromEntries(receipts.map((r) => [r.channel, r.delivered]));
