/** The soak's table and JSON figures from its samples, its feeders' tallies and its accounting. */
import { median, percentile, type BenchRow } from "../support";
import type { AlertLoop, StoreFacts } from "./accounting";
import type { TabletTally, Tally } from "./feeders";
import { fit, pooledFit, series, type Sample } from "./watch";

export interface SoakInput {
  /** Date.now() at the soak's start: sample and alert times count from it. */
  soakStart: number;
  minutes: number;
  killEvery: number;
  warmup: number;
  factor: number;
  samples: Sample[];
  lives: Array<{ index: number; startedAt: number; readyMs: number }>;
  died: number;
  loop: AlertLoop;
  facts: StoreFacts;
  quiet: boolean;
  unansweredStatus: number;
  statusAsked: number;
  promptsFired: number;
  promptsUnanswered: number;
  misplaced: string[];
  tracking: Tally | null;
  tallies: Record<string, Tally>;
  tablets: TabletTally;
}

/** Alert delays fired this long after a life's start are left out of the first/last comparison. */
const FRESH_MS = 30_000;
/** ... and this long before it (the kill and the restart). */
const KILL_GAP_MS = 10_000;
/** Minutes at the start (after warm-up) and at the end that are compared. */
const WINDOW_MIN = 2;
const r2 = (v: number) => Math.round(v * 100) / 100;

/** The median of a figure in [from, to) minutes of a life's age. */
function medianIn(points: Array<[number, number]>, from: number, to: number): number {
  return median(points.filter(([x]) => x >= from && x < to).map(([, y]) => y));
}

export function soakRows(i: SoakInput): { rows: BenchRow[]; figures: Record<string, unknown> } {
  const rows: BenchRow[] = [];
  const lifeIds = i.lives.map((l) => l.index);
  const rss = lifeIds.map((l) => series(i.samples, l, i.warmup, (s) => s.rssMb));
  const heap = lifeIds.map((l) => series(i.samples, l, i.warmup, (s) => s.heapMb));
  const handles = lifeIds.map((l) => series(i.samples, l, i.warmup, (s) => s.handles));
  const timers = lifeIds.map((l) => series(i.samples, l, i.warmup, (s) => s.timers));
  const rssSlopes = rss.map((p) => fit(p).slope);
  const rssPooled = pooledFit(rss).slope;
  // The hour's trend: each life's median RSS after its warm-up, against when it lived. A life of
  // a few minutes is still settling (its own slope is that, not a leak); what a household's
  // running adds (store, caches, media) shows as later lives sitting higher.
  const acrossLives = fit(
    lifeIds
      .map((l, k): [number, number] | null => {
        const atOf = i.samples.filter((s) => s.life === l && s.age >= i.warmup).map((s) => s.at);
        return rss[k].length ? [median(atOf), median(rss[k].map(([, y]) => y))] : null;
      })
      .filter((p): p is [number, number] => p !== null),
  ).slope;
  const heapPooled = pooledFit(heap).slope;

  rows.push({ measure: `soak: ${i.minutes} min at ${i.factor}x a household, kill -9 every ${i.killEvery} min`, value: i.lives.length, unit: "process lives" });
  rows.push({ measure: "restart: spawn to the first 200 from /health, median", value: median(i.lives.slice(1).map((l) => l.readyMs)) / 1000, unit: "s" });
  rows.push({ measure: "died on its own", value: i.died, unit: "", target: "0", ok: i.died === 0 });
  for (const [k, p] of rss.entries()) {
    const first = p[0]?.[1];
    const last = p[p.length - 1]?.[1];
    rows.push({
      measure: `life ${k + 1}: RSS after ${i.warmup} min warm-up, ${first?.toFixed(0)} -> ${last?.toFixed(0)} MB, slope (settling)`,
      value: rssSlopes[k],
      unit: "MB/h",
    });
  }
  rows.push({ measure: "RSS slope within lives (each its own intercept; settling)", value: rssPooled, unit: "MB/h" });
  rows.push({
    measure: "RSS across the run: each life's median after warm-up, by when it lived",
    // Three lives at least (SOAK_MINUTES over SOAK_KILL_EVERY_MINUTES): fewer draw no line.
    value: Number.isNaN(acrossLives) ? "needs 3 lives" : acrossLives,
    unit: "MB/h",
    target: "< 5",
    ok: Number.isNaN(acrossLives) ? undefined : acrossLives < 5,
  });
  rows.push({ measure: "heap in use slope, all lives", value: heapPooled, unit: "MB/h" });

  const flat = (points: Array<[number, number]>[], what: string) => {
    let allOk = true;
    const pairs: Array<[number, number]> = [];
    for (const p of points) {
      if (p.length < 2) continue;
      const lastAge = p[p.length - 1][0];
      const first = medianIn(p, i.warmup, i.warmup + 1);
      const last = medianIn(p, lastAge - 1, lastAge + 1);
      pairs.push([first, last]);
      if (last > first * 1.1 + 2) allOk = false;
    }
    rows.push({
      measure: `${what}: first minute after warm-up -> last minute, medians per life`,
      value: pairs.map(([a, b]) => `${a}->${b}`).join(", "),
      unit: "",
      target: "<= +10% +2",
      ok: allOk,
    });
    return { pairs, ok: allOk, slope: pooledFit(points).slope };
  };
  const handlesFlat = flat(handles, "open handles");
  const timersFlat = flat(timers, "timers");

  const lags = i.samples.filter((s) => s.age >= i.warmup && s.lagP99Ms !== null).map((s) => s.lagP99Ms!);
  const lagP99 = percentile(lags, 99);
  rows.push({ measure: "event-loop lag p99 (p99 of 10 s windows after warm-up)", value: lagP99, unit: "ms", target: "< 50", ok: lagP99 < 50 });
  rows.push({ measure: "  worst 10 s window", value: Math.max(...lags), unit: "ms" });

  // The alert loop, minute by minute.
  // Fired while a life was down or just up: a kill's pause, or a fresh process compiling its paths.
  const fresh = (at: number) =>
    i.lives.some((l) => {
      const since = i.soakStart + at * 60_000 - l.startedAt;
      return since >= -KILL_GAP_MS && since < FRESH_MS;
    });
  const byMinute: Record<number, number> = {};
  for (let m = 0; m < Math.ceil(i.minutes); m++) {
    const inMinute = i.loop.delays.filter((d) => d.at >= m && d.at < m + 1).map((d) => d.ms);
    if (inMinute.length) byMinute[m] = percentile(inMinute, 99);
  }
  const steady = i.loop.delays.filter((d) => !fresh(d.at));
  const firstP99 = percentile(
    steady.filter((d) => d.at >= i.warmup && d.at < i.warmup + WINDOW_MIN).map((d) => d.ms),
    99,
  );
  const lastP99 = percentile(
    steady.filter((d) => d.at >= i.minutes - WINDOW_MIN).map((d) => d.ms),
    99,
  );
  const ratio = lastP99 / firstP99;
  rows.push({ measure: `alert loop (webhook -> chat) p99, minutes ${i.warmup}-${i.warmup + WINDOW_MIN}`, value: firstP99, unit: "ms" });
  rows.push({
    measure: `alert loop p99, last ${WINDOW_MIN} minutes, ratio to the first`,
    value: `${lastP99.toFixed(0)} (${ratio.toFixed(2)}x)`,
    unit: "ms",
    target: "<= 1.2x",
    ok: ratio <= 1.2,
  });
  rows.push({
    measure: "alert loop p99 per minute",
    value: Object.values(byMinute)
      .map((v) => v.toFixed(0))
      .join(" "),
    unit: "ms",
  });

  const lost =
    i.loop.lost.length +
    i.loop.notRaised.length +
    i.facts.runs.unfinished +
    i.facts.runs.failedWithoutReason +
    i.unansweredStatus +
    i.promptsUnanswered +
    i.misplaced.length;
  rows.push({
    measure: `runs: ${i.facts.runs.total}, ${JSON.stringify(i.facts.runs.byStatus)}; unfinished / failed without a reason`,
    value: `${i.facts.runs.unfinished} / ${i.facts.runs.failedWithoutReason}`,
    unit: "",
    target: "0 / 0",
    ok: i.facts.runs.unfinished + i.facts.runs.failedWithoutReason === 0 && i.quiet,
  });
  rows.push({
    measure: `alerts fired ${i.loop.delays.length + i.loop.lost.length + i.loop.notRaised.length + i.loop.cutShort}: raised and not in the chat / accepted and never raised`,
    value: `${i.loop.lost.length} / ${i.loop.notRaised.length}`,
    unit: "",
    target: "0 / 0",
    ok: i.loop.lost.length + i.loop.notRaised.length === 0,
  });
  rows.push({ measure: "  runs cut short by a kill before raising (failed, with its reason)", value: i.loop.cutShort, unit: "" });
  rows.push({ measure: `/status asked ${i.statusAsked}: unanswered`, value: i.unansweredStatus, unit: "", target: "0", ok: i.unansweredStatus === 0 });
  rows.push({
    measure: `prompts ${i.promptsFired}: not answered by a tablet`,
    value: i.promptsUnanswered,
    unit: "",
    target: "0",
    ok: i.promptsUnanswered === 0,
  });
  rows.push(
    i.tracking
      ? {
          measure: `tracking: ${i.tracking.sent} events; persons not where the last event put them`,
          value: i.misplaced.length,
          unit: "",
          target: "0",
          ok: i.misplaced.length === 0,
        }
      : { measure: "tracking", value: "not fed (no NATS)", unit: "" },
  );
  rows.push({ measure: "lost, all parts", value: lost, unit: "", target: "0", ok: lost === 0 });

  const fed = Object.entries({ ...i.tallies, ...(i.tracking ? { tracking: i.tracking } : {}) }).map(
    ([k, t]) => `${k} ${t.sent}${t.errors ? ` (${t.errors} errors)` : ""}`,
  );
  rows.push({ measure: `fed: ${fed.join(", ")}`, value: "", unit: "" });
  rows.push({
    measure: `tablets: ${i.tablets.connects} connections, ${i.tablets.answered} prompts answered (${i.tablets.accepted} taken), ${i.tablets.popups} popups put away`,
    value: "",
    unit: "",
  });

  const ok = rows.every((r) => r.ok !== false);
  return {
    rows,
    figures: {
      minutes: i.minutes,
      factor: i.factor,
      kill_every_minutes: i.killEvery,
      lives: i.lives.length,
      died: i.died,
      restart_ready_s: i.lives.slice(1).map((l) => r2(l.readyMs / 1000)),
      rss_mb_per_hour_per_life: rssSlopes.map(r2),
      rss_mb_per_hour: r2(rssPooled),
      rss_mb_per_hour_across_lives: r2(acrossLives),
      heap_mb_per_hour: r2(heapPooled),
      handles_first_last: handlesFlat.pairs,
      handles_per_hour: r2(handlesFlat.slope),
      timers_first_last: timersFlat.pairs,
      timers_per_hour: r2(timersFlat.slope),
      eventloop_lag_p99_ms: r2(lagP99),
      eventloop_lag_worst_ms: r2(Math.max(...lags)),
      alert_p99_first_ms: r2(firstP99),
      alert_p99_last_ms: r2(lastP99),
      alert_p99_ratio: r2(ratio),
      alert_p99_by_minute_ms: Object.fromEntries(Object.entries(byMinute).map(([m, v]) => [m, r2(v)])),
      alerts: i.loop.delays.length,
      alerts_lost: i.loop.lost.length,
      alerts_not_raised: i.loop.notRaised.length,
      alerts_cut_short: i.loop.cutShort,
      runs: i.facts.runs.byStatus,
      runs_unfinished: i.facts.runs.unfinished,
      runs_failed_without_reason: i.facts.runs.failedWithoutReason,
      failure_reasons: i.facts.runs.reasons,
      status_unanswered: i.unansweredStatus,
      prompts: i.promptsFired,
      prompts_unanswered: i.promptsUnanswered,
      tracking_misplaced: i.tracking ? i.misplaced.length : null,
      lost,
      fed: Object.fromEntries(
        Object.entries({ ...i.tallies, ...(i.tracking ? { tracking: i.tracking } : {}) }).map(([k, t]) => [k, { sent: t.sent, errors: t.errors }]),
      ),
      tablets: i.tablets,
      target_met: ok,
    },
  };
}
