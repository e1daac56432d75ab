/**
 * Every part careflow depends on, with its state (issue 44 §1): `ok`, `late`, `silent` or
 * `down`, when it was last seen and since when it is in its state. Computed on the app's clock,
 * so a test moves a ManualClock and sees a quiet camera go late, then silent.
 *
 * Three sorts of part:
 * - contact parts (devices): alive when they call. With a cadence (`expectEveryMs`) a part is
 *   `late` once a cadence has passed since its last contact and `silent` after
 *   `SILENT_AFTER_CADENCES` of them; without one it is `ok` whenever it was last heard from.
 * - links (hub, tracking, the tablet's socket, the chat bot, the webhook): up or down as reported
 *   (an event or a probe sampled on the tick); `late` while down within the grace period, `down`
 *   past it, or at once when a notification it was to carry failed (`failed`).
 * - gauges (database write, free disk, event-loop lag): measured on the tick, judged by their own
 *   thresholds (`late` = degraded, `down` = failing).
 *
 * Contact and link states are derived from timestamps when read, so `since` is the exact moment
 * a threshold passed, not the moment someone looked.
 */
import type { Clock } from "../core/clock";
import type { PartKind } from "../../../nodes/_kit/part-kinds";

export type { PartKind };

export type PartState = "ok" | "late" | "silent" | "down";
export const PART_STATES: readonly PartState[] = ["ok", "late", "silent", "down"];

/** A contact part that misses this many cadences is silent (one missed: late). */
export const SILENT_AFTER_CADENCES = 3;
/** How often probes and gauges are sampled. */
export const SAMPLE_EVERY_MS = 30_000;
/** A gauge with no reading after this long (real time) is down. */
export const MEASURE_TIMEOUT_MS = 10_000;

export interface Stability {
  version: number;
  until: number;
}

export interface PartView {
  id: string;
  kind: PartKind;
  name: string;
  state: PartState;
  /** ISO time of the last contact (a device's request, a link seen up, a gauge measured); null: never. */
  last_seen: string | null;
  /** ISO time the part entered its state. */
  since: string;
  /** Devices: the cadence it is expected at, in minutes (null: none). */
  expect_every_minutes?: number | null;
  /** Why it is not ok, or what a gauge measured. */
  detail?: string;
}

export interface PartsSummary {
  /** The worst state of any part (ok when there are none). */
  state: PartState;
  counts: Record<PartState, number>;
  /** The parts not ok, by id. */
  not_ok: string[];
}

export interface GaugeReading {
  state: Exclude<PartState, "silent">;
  detail: string;
}

interface Base {
  id: string;
  kind: PartKind;
  name: string;
  lastSeen: number | null;
}
interface ContactPart extends Base {
  sort: "contact";
  expectEveryMs: number | null;
  /** When it last came back to ok (or was first known). */
  okSince: number;
}
interface LinkPart extends Base {
  sort: "link";
  graceMs: number;
  up: boolean;
  /** When it was first found down (null while up). */
  downAt: number | null;
  upSince: number;
  /** When a job through it (a notification's send) failed: down from then, without the grace. */
  failedAt: number | null;
  detail?: string;
  probe?: () => { up: boolean; detail?: string } | null;
}
interface GaugePart extends Base {
  sort: "gauge";
  reading: GaugeReading | null;
  since: number;
  measure: () => Promise<GaugeReading>;
}
type Part = ContactPart | LinkPart | GaugePart;

const RANK: Record<PartState, number> = { ok: 0, late: 1, silent: 2, down: 3 };
const iso = (ms: number): string => new Date(ms).toISOString();

export class PartsBoard {
  private readonly parts = new Map<string, Part>();
  private cancelTick: (() => void) | null = null;
  private sampling: Promise<void> | null = null;
  /** The round queued behind the one in progress (one at most). */
  private nextRound: Promise<void> | null = null;
  private stopped = false;
  private readonly tickListeners = new Set<() => void>();
  /** Counts every change made to a part; states also change by time alone (`stability`). */
  private version = 0;

  constructor(
    private readonly clock: Clock,
    /** Real time a gauge may take (tests: shorter). */
    private readonly measureTimeoutMs = MEASURE_TIMEOUT_MS,
  ) {}

  /** A device known before it calls (from its key): its silence counts from now. */
  contact(id: string, kind: PartKind, name: string, expectEveryMinutes: number | null): void {
    const now = this.clock.now();
    const existing = this.parts.get(id);
    const expectEveryMs = expectEveryMinutes === null ? null : expectEveryMinutes * 60_000;
    this.version++;
    if (existing?.sort === "contact") Object.assign(existing, { kind, name, expectEveryMs });
    else this.parts.set(id, { sort: "contact", id, kind, name, lastSeen: null, expectEveryMs, okSince: now });
  }

  /** A contact part called (a device unknown so far joins without a cadence). */
  seen(id: string, kind: PartKind, name: string): void {
    const now = this.clock.now();
    this.version++;
    let part = this.parts.get(id);
    if (!part || part.sort !== "contact") {
      part = { sort: "contact", id, kind, name, lastSeen: null, expectEveryMs: null, okSince: now };
      this.parts.set(id, part);
    }
    if (this.contactState(part, now).state !== "ok") part.okSince = now;
    part.lastSeen = now;
  }

  /** A link whose state is reported (`report`) or sampled from `probe` (null: not in use now). */
  link(id: string, kind: PartKind, name: string, graceMs: number, probe?: () => { up: boolean; detail?: string } | null): void {
    const now = this.clock.now();
    this.version++;
    // Up until a report or probe says otherwise: a link just made has had no chance to fail.
    this.parts.set(id, { sort: "link", id, kind, name, lastSeen: null, graceMs, up: true, downAt: null, upSince: now, failedAt: null, probe });
  }

  /** A link's news: up (seen now) or down (from now, unless it already was). */
  report(id: string, up: boolean, detail?: string): void {
    const part = this.parts.get(id);
    if (part?.sort !== "link") return;
    const now = this.clock.now();
    // The same news again (probes run at every tick, and a clock moved over a year ticks a
    // million times) is no change a watcher need look at.
    const same = up ? part.up && part.downAt === null && part.failedAt === null && part.detail === undefined : !part.up && part.detail === detail;
    if (!same) this.version++;
    if (up) {
      if (!part.up) part.upSince = now;
      part.up = true;
      part.downAt = null;
      part.failedAt = null;
      part.lastSeen = now;
      part.detail = undefined;
    } else {
      if (part.up) part.downAt = now;
      part.up = false;
      part.detail = detail;
    }
  }

  /**
   * A link that failed a job just now (a notification it was to carry did not go out): down at
   * once, not after its grace, which is for a link's blips; the next sign of life (`report` up)
   * clears it. A part not on the board is left alone.
   */
  failed(id: string, detail: string): void {
    const part = this.parts.get(id);
    if (part?.sort !== "link") return;
    const now = this.clock.now();
    this.version++;
    if (part.up) part.downAt = now;
    part.up = false;
    part.failedAt ??= now;
    part.detail = detail;
  }

  /** Whether a link is up as last reported; null for a part that is no link or not on the board. */
  isUp(id: string): boolean | null {
    const part = this.parts.get(id);
    return part?.sort === "link" ? part.up : null;
  }

  /** A measured part: database write, free disk, event-loop lag. */
  gauge(id: string, kind: PartKind, name: string, measure: () => Promise<GaugeReading>): void {
    this.version++;
    this.parts.set(id, { sort: "gauge", id, kind, name, lastSeen: null, reading: null, since: this.clock.now(), measure });
  }

  /**
   * A gauge's reading known between rounds (a model server's real call just failed): shown at
   * once rather than at the next tick. A part that is no gauge or not on the board is left alone.
   */
  read(id: string, reading: GaugeReading): void {
    const part = this.parts.get(id);
    if (part?.sort === "gauge") this.setReading(part, reading);
  }

  /** Whether a part is on the board. */
  has(id: string): boolean {
    return this.parts.has(id);
  }

  forget(id: string): void {
    this.version++;
    this.parts.delete(id);
  }

  /**
   * What a watcher needs to skip a tick at which no state can have changed: the count of
   * changes made so far and the first instant a state changes by time alone (a quiet device
   * turning late or silent, a link's grace running out). A clock moved over days ticks every
   * 30 s of it; comparing every part at each of those ticks cost seconds.
   */
  stability(): Stability {
    const now = this.clock.now();
    let until = Infinity;
    for (const p of this.parts.values()) {
      const next = p.sort === "contact" ? contactThresholds(p) : p.sort === "link" ? linkDownAt(p) : null;
      for (const at of next === null ? [] : typeof next === "number" ? [next] : [next.lateAt, next.silentAt]) if (at > now) until = Math.min(until, at);
    }
    return { version: this.version, until };
  }

  /** No part changed since `s` was taken and no state has changed by time alone. */
  unchangedSince(s: Stability): boolean {
    return s.version === this.version && this.clock.now() < s.until;
  }

  /** Samples the probes and gauges now, then every `SAMPLE_EVERY_MS` on the clock. */
  start(): () => Promise<void> {
    const tick = () => {
      this.cancelTick = this.clock.at(this.clock.now() + SAMPLE_EVERY_MS, tick, { background: true });
      void this.sample();
      for (const listener of this.tickListeners) listener();
    };
    void this.sample();
    this.cancelTick = this.clock.at(this.clock.now() + SAMPLE_EVERY_MS, tick, { background: true });
    return async () => {
      this.cancelTick?.();
      this.cancelTick = null;
      this.stopped = true;
      await this.sampled();
    };
  }

  /**
   * Called on each tick at the tick's own time, after this tick's probes (when the last round
   * is not still measuring; a gauge's reading is seen at a later tick): the change watcher.
   */
  onTick(listener: () => void): () => void {
    this.tickListeners.add(listener);
    return () => this.tickListeners.delete(listener);
  }

  /** The round of gauges under way, and the one queued after it, are done (a clock moved in steps waits for them). */
  async sampled(): Promise<void> {
    await (this.nextRound ?? this.sampling);
  }

  /**
   * The links' probes now, and a round of the gauges that starts after this call: a round in
   * progress (it may have begun before a gauge was added, or before what it measures changed) is
   * followed by one more, shared by every call made meanwhile, so rounds are never doubled. The
   * probes are cheap and run at every call: a gauge still measuring on a busy box must not leave
   * a dead hub looking fine until its round ends.
   */
  sample(): Promise<void> {
    for (const part of this.parts.values()) {
      if (part.sort !== "link" || !part.probe) continue;
      const seen = part.probe();
      if (seen) this.report(part.id, seen.up, seen.detail);
    }
    if (!this.sampling) return this.startRound();
    this.nextRound ??= this.sampling.then(() => {
      this.nextRound = null;
      // A board stopped meanwhile (the app closing) measures nothing more.
      return this.stopped ? undefined : this.startRound();
    });
    return this.nextRound;
  }

  private startRound(): Promise<void> {
    const round = this.measureGauges().finally(() => {
      if (this.sampling === round) this.sampling = null;
    });
    this.sampling = round;
    return round;
  }

  private async measureGauges(): Promise<void> {
    const gauges: Promise<void>[] = [];
    for (const part of this.parts.values()) if (part.sort === "gauge") gauges.push(this.measure(part));
    await Promise.all(gauges);
  }

  private async measure(part: GaugePart): Promise<void> {
    // A measurement that never ends (a hung disk or database) must not stop every later round,
    // and with them the links' probes: a dead hub would look fine. It is down after a while.
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<GaugeReading>((resolve) => {
      timer = setTimeout(() => resolve({ state: "down", detail: `no answer within ${this.measureTimeoutMs / 1000} s` }), this.measureTimeoutMs);
    });
    const measured = part.measure().catch((err: unknown): GaugeReading => ({ state: "down", detail: err instanceof Error ? err.message : String(err) }));
    const reading = await Promise.race([measured, hung]).finally(() => clearTimeout(timer));
    // Forgotten meanwhile: nothing to record.
    if (this.parts.get(part.id) === part) this.setReading(part, reading);
  }

  private setReading(part: GaugePart, reading: GaugeReading): void {
    const now = this.clock.now();
    this.version++;
    if (part.reading?.state !== reading.state) part.since = now;
    part.reading = reading;
    part.lastSeen = now;
  }

  list(): PartView[] {
    const now = this.clock.now();
    return [...this.parts.values()].map((p) => this.view(p, now)).sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
  }

  summary(): PartsSummary {
    const counts: Record<PartState, number> = { ok: 0, late: 0, silent: 0, down: 0 };
    let state: PartState = "ok";
    const notOk: string[] = [];
    for (const p of this.list()) {
      counts[p.state]++;
      if (RANK[p.state] > RANK[state]) state = p.state;
      if (p.state !== "ok") notOk.push(p.id);
    }
    return { state, counts, not_ok: notOk };
  }

  private view(p: Part, now: number): PartView {
    const base = { id: p.id, kind: p.kind, name: p.name, last_seen: p.lastSeen === null ? null : iso(p.lastSeen) };
    if (p.sort === "contact") {
      const { state, since } = this.contactState(p, now);
      const minutes = p.expectEveryMs === null ? null : p.expectEveryMs / 60_000;
      const quiet = state === "ok" ? {} : { detail: p.lastSeen === null ? "not heard from since careflow started" : `nothing since ${iso(p.lastSeen)}` };
      return { ...base, state, since: iso(since), expect_every_minutes: minutes, ...quiet };
    }
    if (p.sort === "link") {
      const downAt = linkDownAt(p);
      if (downAt === null || p.downAt === null) return { ...base, state: "ok", since: iso(p.upSince) };
      const detail = p.detail ?? "disconnected";
      return now >= downAt ? { ...base, state: "down", since: iso(downAt), detail } : { ...base, state: "late", since: iso(p.downAt), detail };
    }
    if (!p.reading) return { ...base, state: "ok", since: iso(p.since), detail: "not measured yet" };
    return { ...base, state: p.reading.state, since: iso(p.since), detail: p.reading.detail };
  }

  private contactState(p: ContactPart, now: number): { state: PartState; since: number } {
    const thresholds = contactThresholds(p);
    if (thresholds === null) return { state: "ok", since: p.okSince };
    const { lateAt, silentAt } = thresholds;
    if (now >= silentAt) return { state: "silent", since: silentAt };
    if (now >= lateAt) return { state: "late", since: lateAt };
    return { state: "ok", since: p.okSince };
  }
}

/** When a device with a cadence turns late and silent if it stays quiet (null: no cadence). */
function contactThresholds(p: ContactPart): { lateAt: number; silentAt: number } | null {
  if (p.expectEveryMs === null) return null;
  // Never heard from: its silence counts from when it became known.
  const from = p.lastSeen ?? p.okSince;
  return { lateAt: from + p.expectEveryMs, silentAt: from + SILENT_AFTER_CADENCES * p.expectEveryMs };
}

/** When a link reported down is `down` (its grace, or at once after a failed job); null while up. */
function linkDownAt(p: LinkPart): number | null {
  if (p.up || p.downAt === null) return null;
  return Math.min(p.downAt + p.graceMs, p.failedAt ?? Infinity);
}
