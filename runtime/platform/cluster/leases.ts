/**
 * Leases: which instance runs each singular job (the cron scheduler, the midnight reports,
 * retention sweeps, the chat poller, the hub connection). A job asks to `run` under a lease
 * name; its `onAcquire` starts the work when this instance takes the lease and `onLose` stops
 * it when the lease is lost, given back or no longer wanted. With one instance (the default)
 * every lease is held at once and nothing touches the database (single-instance.ts); with
 * `cluster.enabled` the leases are rows in PostgreSQL (pg-leases.ts, docs/cluster.md).
 */

/** A lease as taken: its fencing token grows at every change of holder. */
export interface LeaseGrant {
  name: string;
  token: number;
}

export interface LeaseHandlers {
  /** This instance took the lease: start the work. */
  onAcquire(grant: LeaseGrant): void | Promise<void>;
  /** This instance no longer holds it: stop the work (awaited before the lease is given back). */
  onLose(): void | Promise<void>;
}

export interface Leases {
  readonly instanceId: string;
  /** Runs `handlers` under the lease `name`; the returned stop ends the work and gives the lease back. */
  run(name: string, handlers: LeaseHandlers): () => Promise<void>;
  /** Does this instance hold the lease now? */
  holds(name: string): boolean;
  /** The lease names this instance wants, and the token of each it holds. */
  local(): Array<{ name: string; token: number | null }>;
  /** Gives every lease back (each job's onLose first). */
  stop(): Promise<void>;
}

type Stop = () => void | Promise<void>;

/**
 * The common shape of a leased job: `start` begins the work and returns its stop. Started on
 * acquiring, stopped on losing; the returned stop gives the lease up for good.
 */
export function whileHolding(leases: Leases, name: string, start: (grant: LeaseGrant) => Stop): () => Promise<void> {
  let stopWork: Stop | null = null;
  return leases.run(name, {
    onAcquire: (grant) => {
      stopWork = start(grant);
    },
    onLose: async () => {
      const stop = stopWork;
      stopWork = null;
      await stop?.();
    },
  });
}
