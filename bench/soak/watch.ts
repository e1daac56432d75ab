/**
 * What the soak reads from outside the service, every 10 s: its resident set from /proc, and
 * from its own `GET /metrics` (a metrics key) the event loop's lag p99 over the last window
 * (prom-client resets the histogram at each scrape), the open handles, the timers
 * (`nodejs_active_resources{type="Timeout"}`) and the heap in use. Then the sums over those
 * samples: a straight line through each process life after its warm-up, and one slope for
 * all lives together (each life its own intercept: a restart's drop is no shrinkage).
 */
import { parseExposition } from "../../test/support/prom-text";
import { METRICS_KEY } from "./household";
import { rssMb } from "./service-life";

export interface Sample {
  life: number;
  /** Minutes since the soak started. */
  at: number;
  /** Minutes since this life answered its first /health. */
  age: number;
  rssMb: number | null;
  heapMb: number | null;
  lagP99Ms: number | null;
  handles: number | null;
  timers: number | null;
}

const num = (v: number | undefined): number | null => (v === undefined || Number.isNaN(v) ? null : v);

export async function sample(life: { index: number; pid: number; baseUrl: string; startedAt: number }, soakStart: number, now: number): Promise<Sample> {
  const s: Sample = {
    life: life.index,
    at: (now - soakStart) / 60_000,
    age: (now - life.startedAt) / 60_000,
    rssMb: rssMb(life.pid),
    heapMb: null,
    lagP99Ms: null,
    handles: null,
    timers: null,
  };
  try {
    const res = await fetch(`${life.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_KEY}` }, signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    if (res.status !== 200) return s;
    const m = parseExposition(text);
    const lag = num(m.value("nodejs_eventloop_lag_p99_seconds"));
    s.lagP99Ms = lag === null ? null : lag * 1000;
    const heap = num(m.value("nodejs_heap_size_used_bytes"));
    s.heapMb = heap === null ? null : heap / 2 ** 20;
    s.handles = num(m.value("nodejs_active_handles_total"));
    s.timers = num(m.value("nodejs_active_resources", { type: "Timeout" })) ?? 0;
  } catch {
    // Scraped as it was killed: the /proc figure still counts.
  }
  return s;
}

export interface Line {
  /** Per hour. */
  slope: number;
  n: number;
}

/** Least squares through (x minutes, y); the slope per hour. */
export function fit(points: Array<[number, number]>): Line {
  const n = points.length;
  if (n < 3) return { slope: NaN, n };
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return { slope: (sxy / sxx) * 60, n };
}

/** One slope for several lives, each with its own intercept (pooled within-life least squares), per hour. */
export function pooledFit(lives: Array<Array<[number, number]>>): Line {
  let sxy = 0;
  let sxx = 0;
  let n = 0;
  for (const points of lives) {
    if (points.length < 3) continue;
    const mx = points.reduce((a, [x]) => a + x, 0) / points.length;
    const my = points.reduce((a, [, y]) => a + y, 0) / points.length;
    for (const [x, y] of points) {
      sxy += (x - mx) * (y - my);
      sxx += (x - mx) ** 2;
    }
    n += points.length;
  }
  return { slope: sxx ? (sxy / sxx) * 60 : NaN, n };
}

/** The points of one figure in one life after its warm-up, as (minutes of its age, value). */
export function series(samples: readonly Sample[], life: number, warmupMinutes: number, pick: (s: Sample) => number | null): Array<[number, number]> {
  return samples.filter((s) => s.life === life && s.age >= warmupMinutes && pick(s) !== null).map((s) => [s.age, pick(s)!]);
}
