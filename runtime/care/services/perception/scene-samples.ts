/**
 * The spec's SceneSampleSubscriber: each scene sample the tracking service tags (bus
 * `cts.scene_sample`, once household/cts committed it) has its keyframe fetched from the
 * tracking service's object store, analysed by the scene-analysis service and kept as an
 * observation in semantic memory, where `semantic_memory_query` finds it. As the original:
 * room from the camera's `location`, every analysis component asked for, source `scene_intel`.
 *
 * Nothing here may hold up or crash the tracking streams: at most `max_in_flight` samples are
 * worked on at once and `max_queued` wait; beyond that, an expired sample, a store or service
 * that is down or not configured: the sample is counted (`/health` → `cts.scene_samples`),
 * logged (at most every 10 s per kind) and let go. The sample was acknowledged on the broker
 * when its receipt committed; it is not retried.
 */
import type { PlatformContext } from "../../../platform/context";
import { isoAt } from "../../../platform/core/clock";
import type { SceneSampleEvent } from "../../../platform/core/event-bus";
import { getKeyframe } from "./keyframe-store.client";
import { analyzeScene } from "./scene-analysis.client";
import { createObservation } from "./semantic-memory.client";

export const SCENE_INTEL_SOURCE = "scene_intel";

type Outcome = "stored" | "expired" | "busy" | "skipped" | "keyframe_failed" | "analysis_failed" | "memory_failed";

export interface SceneSampleStatus {
  received: number;
  /** Observations stored in semantic memory. */
  stored: number;
  /** Past their `expires_at` before their keyframe was fetched. */
  expired: number;
  /** Dropped: `max_in_flight` were being worked on and `max_queued` waited. */
  busy: number;
  /** Not worked on: the keyframe store, scene analysis or semantic memory is off or not configured. */
  skipped: number;
  keyframe_failed: number;
  analysis_failed: number;
  memory_failed: number;
  in_flight: number;
  queued: number;
  last_stored_at: string | null;
  /** Why the last sample that was not stored was not, and when. */
  last_problem: string | null;
  last_problem_at: string | null;
}

const LOG_EVERY_MS = 10_000;

export class SceneSamples {
  private readonly queue: SceneSampleEvent[] = [];
  private readonly active = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private readonly lastLog = new Map<Outcome, { at: number; since: number }>();
  private unsubscribe: (() => void) | null = null;
  private readonly counts: Record<Outcome | "received", number> = {
    received: 0,
    stored: 0,
    expired: 0,
    busy: 0,
    skipped: 0,
    keyframe_failed: 0,
    analysis_failed: 0,
    memory_failed: 0,
  };
  private lastStoredAt: string | null = null;
  private lastProblem: { what: string; at: string } | null = null;

  constructor(private readonly ctx: PlatformContext) {}

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.ctx.bus.subscribe("cts.scene_sample", (s) => this.accept(s));
  }

  /** Stops taking samples, drops the waiting ones and cancels those being worked on. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.queue.length = 0;
    this.abort.abort(new Error("careflow is stopping"));
    await Promise.allSettled([...this.active]);
  }

  /** Resolves when no sample is waiting or being worked on; for tests. */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }

  status(): SceneSampleStatus {
    return {
      ...this.counts,
      in_flight: this.active.size,
      queued: this.queue.length,
      last_stored_at: this.lastStoredAt,
      last_problem: this.lastProblem?.what ?? null,
      last_problem_at: this.lastProblem?.at ?? null,
    };
  }

  private accept(sample: SceneSampleEvent): void {
    this.counts.received += 1;
    const { max_in_flight, max_queued } = this.ctx.settings.cts.scene_samples;
    if (this.active.size < max_in_flight) this.run(sample);
    else if (this.queue.length < max_queued) this.queue.push(sample);
    else this.note("busy", sample, `${max_in_flight} scene samples in flight and ${max_queued} waiting`);
  }

  private run(sample: SceneSampleEvent): void {
    const work = this.handle(sample)
      .catch((err: unknown) => {
        if (!this.abort.signal.aborted) this.note("analysis_failed", sample, `failed: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        this.active.delete(work);
        const next = this.queue.shift();
        if (next && !this.abort.signal.aborted) this.run(next);
      });
    this.active.add(work);
  }

  private async handle(sample: SceneSampleEvent): Promise<void> {
    const { settings } = this.ctx;
    const expires = sample.expires_at === null ? null : Date.parse(sample.expires_at);
    if (expires !== null && expires <= this.ctx.clock.now()) return this.note("expired", sample, `expired at ${sample.expires_at}`);
    const off = !settings.cts.keyframes.endpoint
      ? "cts.keyframes.endpoint is null"
      : !settings.scene_analysis.enabled
        ? "scene_analysis.enabled is false"
        : !settings.semantic_memory.enabled
          ? "semantic_memory.enabled is false"
          : null;
    if (off) return this.note("skipped", sample, `not analysed: ${off}`);
    const signal = this.abort.signal;

    const image = await getKeyframe(settings.cts.keyframes, sample.minio_key, signal);
    if (!image.ok) return this.note("keyframe_failed", sample, image.reason);
    const analysis = await analyzeScene(
      settings.scene_analysis,
      image.value,
      { run_detect: true, run_describe: true, run_embed: true, run_hazards: true, sensor_id: sample.camera_id },
      signal,
    );
    if (!analysis.ok) return this.note("analysis_failed", sample, analysis.reason);
    const a = analysis.value;
    const room = settings.cts.cameras.find((c) => c.id === sample.camera_id)?.location ?? "";
    const stored = await createObservation(
      settings.semantic_memory,
      {
        room_id: room,
        description: a.description,
        object_list: a.detections.map((d) => d.label),
        hazard_flags: a.hazards.map((h) => h.name),
        embedding: a.embedding,
        source: SCENE_INTEL_SOURCE,
        observed_at: sample.captured_at,
      },
      signal,
    );
    if (!stored.ok) return this.note("memory_failed", sample, stored.reason);
    this.counts.stored += 1;
    this.lastStoredAt = isoAt(this.ctx.clock.now());
    this.ctx.log.debug(
      { keyframe_id: sample.keyframe_id, camera_id: sample.camera_id, room_id: room, observation_id: stored.value.id },
      "scene sample: observation stored in semantic memory",
    );
  }

  /** Counts a sample that was not stored, and logs it (at most every 10 s per kind, with how many since). */
  private note(outcome: Exclude<Outcome, "stored">, sample: SceneSampleEvent, why: string): void {
    this.counts[outcome] += 1;
    const now = this.ctx.clock.now();
    this.lastProblem = { what: `${sample.keyframe_id}: ${why}`, at: isoAt(now) };
    const last = this.lastLog.get(outcome);
    if (last && now - last.at < LOG_EVERY_MS) {
      last.since += 1;
      return;
    }
    this.lastLog.set(outcome, { at: now, since: 0 });
    const log = outcome === "skipped" || outcome === "expired" ? this.ctx.log.info.bind(this.ctx.log) : this.ctx.log.warn.bind(this.ctx.log);
    log(
      { keyframe_id: sample.keyframe_id, camera_id: sample.camera_id, outcome, why, more_since_last_log: last?.since ?? 0 },
      "scene sample not stored in semantic memory",
    );
  }
}
