/**
 * A service careflow calls now and then (a model server, the speech service) as a part: its
 * state is what the last real call said, and when nothing called it for `CHECK_EVERY_MS`, a
 * cheap check (a listing route) made on the board's round. A gauge whose measure returns the
 * reading it has unless that long passed on the app's clock, so the server is asked at most
 * once per interval however often the board samples.
 *
 * Grace (docs/decisions.md, "Model and speech parts"): a real call that failed is `down` at
 * once (a rule needed the service and did not get it); a failed check is `late` first and
 * `down` when the next check fails too, so one dropped request at night tells nobody.
 */
import type { Clock } from "../core/clock";
import type { GaugeReading, PartKind, PartsBoard } from "./parts-board";
import { describeFetchFailure } from "./service-calls";

export const CHECK_EVERY_MS = 5 * 60_000;
/** A check is a listing: a server that needs longer is not well. */
export const CHECK_TIMEOUT_MS = 5_000;

export interface EndpointPartOptions {
  id: string;
  kind: PartKind;
  name: string;
  /** The cheap check: null when the service answered, else why not ("connection refused", "HTTP 500"). */
  check: (signal: AbortSignal) => Promise<string | null>;
}

export interface EndpointPart {
  /** A real call's outcome: shown at once, and no check is needed for another interval. */
  called(up: boolean, detail?: string): void;
}

export function endpointPart(board: PartsBoard, clock: Clock, o: EndpointPartOptions): EndpointPart {
  let last: { at: number; reading: GaugeReading } | null = null;
  let failedChecks = 0;
  const remember = (reading: GaugeReading): GaugeReading => {
    last = { at: clock.now(), reading };
    return reading;
  };
  board.gauge(o.id, o.kind, o.name, async () => {
    if (last && clock.now() - last.at < CHECK_EVERY_MS) return last.reading;
    const at = clock.now();
    const problem = await o.check(AbortSignal.timeout(CHECK_TIMEOUT_MS)).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
    failedChecks = problem === null ? 0 : failedChecks + 1;
    const reading: GaugeReading =
      problem === null
        ? { state: "ok", detail: "answered the check" }
        : { state: failedChecks >= 2 ? "down" : "late", detail: `did not answer the check: ${problem}` };
    // The interval counts from when the check started, so checks keep their 5-minute beat.
    last = { at, reading };
    return reading;
  });
  return {
    called(up, detail) {
      failedChecks = up ? 0 : failedChecks;
      const reading = remember(
        up ? { state: "ok", detail: "answered careflow's last call" } : { state: "down", detail: `a call failed: ${detail ?? "no answer"}` },
      );
      board.read(o.id, reading);
    },
  };
}

/** GET `url`: null when it answers 2xx, else why not. */
export async function checkUrl(url: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<string | null> {
  try {
    const res = await fetch(url, { headers, signal });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? null : `HTTP ${res.status}`;
  } catch (err) {
    return describeFetchFailure(err);
  }
}
