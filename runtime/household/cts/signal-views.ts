/**
 * Dementia signals as the `/cts/signals` routes answer them: each person's alert profile
 * decides which of their signals are listed (a kind the profile leaves out is stored but not
 * shown to the family), and an acknowledgment records when, by whom and what they said, which
 * the `dementia_signal` filter's cooldown honours.
 */
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { NotFoundError } from "../../platform/core/errors";
import { parseInput } from "../../platform/core/validation";
import { loadAlertProfiles, profileAllows } from "../tracking/signal-profiles";
import { acknowledgeSignal, findSignals, type DementiaSignal, type SignalQuery } from "../tracking/signals.store";

export async function listProfileSignals(ctx: PlatformContext, q: SignalQuery, limit: number): Promise<DementiaSignal[]> {
  // Read past the limit so what a profile hides does not leave the page short.
  const found = await findSignals(ctx.db, { ...q, limit: limit * 5 });
  const profiles = await loadAlertProfiles(
    ctx.db,
    found.map((s) => s.person_id),
  );
  return found.filter((s) => profileAllows(profiles.get(s.person_id), s.kind, s.severity)).slice(0, limit);
}

const ackBody = z
  .object({
    feedback: z.string().max(2000).nullable().optional(),
  })
  .strict();

export async function acknowledge(ctx: PlatformContext, id: number, body: unknown, by: string): Promise<DementiaSignal> {
  const { feedback } = parseInput(ackBody, body ?? {}, "body");
  const signal = await acknowledgeSignal(ctx.db, id, { acknowledged_at: isoNow(ctx.clock), acknowledged_by: by, feedback: feedback?.trim() || null });
  if (!signal) throw new NotFoundError(`Dementia signal ${id} not found`);
  return signal;
}
