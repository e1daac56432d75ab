/**
 * Leases as PostgreSQL rows (docs/decisions.md, "Leases are rows with a fencing token"). Every
 * third of `lease_seconds` a round records this instance's heartbeat, renews the leases it holds
 * in one statement and tries to take each one it wants and lacks. A held lease also has a local
 * deadline at its expiry: an instance that could not renew (its database unreachable, its event
 * loop stalled) stops the work by then, before any other instance may take the lease over.
 * Times are the app clock's, so a ManualClock drives renewals and expiry in tests.
 */
import os from "node:os";
import type { Knex } from "knex";
import type { Clock } from "../core/clock";
import type { Logger } from "../core/logger";
import type { LeaseHandlers, Leases } from "./leases";
import { forgetSilentInstances, heartbeat, release, removeInstance, renew, tryAcquire } from "./cluster.store";

export interface PgLeasesOptions {
  db: Knex;
  clock: Clock;
  log: Logger;
  instanceId: string;
  leaseMs: number;
}

interface Held {
  token: number;
  expiresAt: number;
  cancelDeadline: () => void;
}

interface Wanted {
  handlers: LeaseHandlers;
  held: Held | null;
  /** onAcquire and onLose of one lease never overlap: each waits for the one before. */
  chain: Promise<void>;
}

/** Instances silent this long leave the list (GET /api/v1/admin/cluster). */
const FORGET_AFTER_MS = 3600_000;

export class PgLeases implements Leases {
  private readonly wanted = new Map<string, Wanted>();
  private rounds: Promise<void> = Promise.resolve();
  private cancelTimer: (() => void) | null = null;
  private running = false;
  private readonly startedAt: number;

  constructor(private readonly opts: PgLeasesOptions) {
    this.startedAt = opts.clock.now();
  }

  get instanceId(): string {
    return this.opts.instanceId;
  }

  /** Registers this instance and starts the rounds. */
  async start(): Promise<void> {
    this.running = true;
    await this.round();
    this.arm();
  }

  run(name: string, handlers: LeaseHandlers): () => Promise<void> {
    if (this.wanted.has(name)) throw new Error(`lease '${name}' is already run by this instance`);
    const w: Wanted = { handlers, held: null, chain: Promise.resolve() };
    this.wanted.set(name, w);
    // Taken at once when free, not a period later.
    if (this.running) void this.tick();
    return async () => {
      if (this.wanted.get(name) !== w) return;
      this.wanted.delete(name);
      await this.lose(name, w, true);
      await w.chain;
    };
  }

  holds(name: string): boolean {
    const held = this.wanted.get(name)?.held;
    return !!held && this.opts.clock.now() < held.expiresAt;
  }

  local(): Array<{ name: string; token: number | null }> {
    return [...this.wanted].map(([name, w]) => ({ name, token: w.held?.token ?? null }));
  }

  /** One more round after those queued; resolves when it is done (tests await it after moving a ManualClock). */
  tick(): Promise<void> {
    this.rounds = this.rounds.then(() => (this.running ? this.round() : undefined));
    return this.rounds;
  }

  /** Resolves when the rounds and lease changes under way are done. */
  async settled(): Promise<void> {
    await this.rounds;
    await Promise.all([...this.wanted.values()].map((w) => w.chain));
  }

  async stop(): Promise<void> {
    this.running = false;
    this.cancelTimer?.();
    this.cancelTimer = null;
    await this.rounds;
    for (const [name, w] of [...this.wanted]) {
      this.wanted.delete(name);
      await this.lose(name, w, true);
      await w.chain;
    }
    await removeInstance(this.opts.db, this.instanceId).catch((err: unknown) => this.opts.log.warn({ err }, "cluster: leaving the instance list failed"));
  }

  /**
   * For tests: the instance dies here, as a killed process would. Its jobs stop, nothing more is
   * written: its leases are not given back, they expire and move to another instance.
   */
  async halt(): Promise<void> {
    this.running = false;
    this.cancelTimer?.();
    this.cancelTimer = null;
    const wanted = [...this.wanted.values()];
    this.wanted.clear();
    for (const w of wanted) {
      const held = w.held;
      w.held = null;
      held?.cancelDeadline();
      if (held) w.chain = w.chain.then(() => w.handlers.onLose()).catch(() => undefined);
      await w.chain;
    }
  }

  private arm(): void {
    if (!this.running) return;
    const period = Math.max(1, Math.floor(this.opts.leaseMs / 3));
    this.cancelTimer = this.opts.clock.at(this.opts.clock.now() + period, () => {
      this.cancelTimer = null;
      void this.tick().then(() => this.arm());
    });
  }

  private async round(): Promise<void> {
    const { db, clock, log, instanceId, leaseMs } = this.opts;
    const now = clock.now();
    try {
      await heartbeat(db, {
        instance_id: instanceId,
        host: os.hostname(),
        pid: process.pid,
        started_at: this.startedAt,
        heartbeat_at: now,
        expires_at: now + leaseMs,
      });
      await forgetSilentInstances(db, now - FORGET_AFTER_MS);
      const held = [...this.wanted].filter(([, w]) => w.held).map(([name, w]) => ({ name, token: w.held!.token }));
      const renewed = await renew(db, instanceId, held, now, now + leaseMs);
      for (const { name } of held) {
        const w = this.wanted.get(name);
        if (!w?.held) continue;
        if (renewed.has(name)) this.extend(name, w, now + leaseMs);
        else {
          log.warn({ lease: name }, "cluster: lease lost (another instance holds it or it expired)");
          await this.lose(name, w, false);
        }
      }
      for (const [name, w] of [...this.wanted]) {
        if (w.held || !this.running) continue;
        const token = await tryAcquire(db, name, instanceId, now, now + leaseMs);
        if (token !== null && this.wanted.get(name) === w) this.acquired(name, w, token, now + leaseMs);
        else if (token !== null) await release(db, name, instanceId, token);
      }
    } catch (err) {
      // Held leases run out at their deadline; the next round tries again.
      log.warn({ err }, "cluster: lease round failed");
    }
  }

  private acquired(name: string, w: Wanted, token: number, expiresAt: number): void {
    w.held = { token, expiresAt, cancelDeadline: () => undefined };
    this.extend(name, w, expiresAt);
    this.opts.log.info({ lease: name, token }, "cluster: lease acquired");
    w.chain = w.chain
      .then(() => w.handlers.onAcquire({ name, token }))
      .catch((err: unknown) => this.opts.log.error({ err, lease: name }, "cluster: starting the leased work failed"));
  }

  private extend(name: string, w: Wanted, expiresAt: number): void {
    const held = w.held!;
    held.cancelDeadline();
    held.expiresAt = expiresAt;
    held.cancelDeadline = this.opts.clock.at(expiresAt, () => {
      if (w.held !== held) return;
      this.opts.log.warn({ lease: name }, "cluster: lease not renewed in time: its work stops");
      void this.lose(name, w, false);
    });
  }

  /** Stops the work (once) and, when giving the lease up on purpose, frees the row at once. */
  private async lose(name: string, w: Wanted, giveBack: boolean): Promise<void> {
    const held = w.held;
    if (!held) return;
    w.held = null;
    held.cancelDeadline();
    w.chain = w.chain
      .then(() => w.handlers.onLose())
      .catch((err: unknown) => this.opts.log.error({ err, lease: name }, "cluster: stopping the leased work failed"));
    await w.chain;
    if (giveBack)
      await release(this.opts.db, name, this.instanceId, held.token).catch((err: unknown) =>
        this.opts.log.warn({ err, lease: name }, "cluster: giving a lease back failed"),
      );
  }
}
