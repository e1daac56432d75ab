/**
 * The one-instance leases (cluster disabled, the default): every lease is held from the moment
 * it is asked for, `onAcquire` runs at once inside `run` (so a job starts exactly when it
 * always did), and nothing is written anywhere.
 */
import type { LeaseHandlers, Leases } from "./leases";

export function singleInstanceLeases(instanceId: string): Leases {
  const running = new Map<string, Set<LeaseHandlers>>();
  // An onAcquire that returns a promise (a job that starts asynchronously) is awaited before its onLose.
  const starting = new Map<LeaseHandlers, Promise<void>>();
  // onLose is called within the stop itself (a job stops exactly when it always did) unless its start is still under way.
  const release = (name: string, h: LeaseHandlers): Promise<void> => {
    const set = running.get(name);
    if (!set?.delete(h)) return Promise.resolve();
    if (set.size === 0) running.delete(name);
    const started = starting.get(h);
    starting.delete(h);
    return started ? started.then(() => h.onLose()) : Promise.resolve(h.onLose());
  };
  return {
    instanceId,
    run(name, handlers) {
      const set = running.get(name) ?? new Set<LeaseHandlers>();
      running.set(name, set);
      set.add(handlers);
      const started = handlers.onAcquire({ name, token: 1 });
      if (started)
        starting.set(
          handlers,
          started.catch(() => undefined),
        );
      return () => release(name, handlers);
    },
    holds: () => true,
    local: () => [...running.keys()].map((name) => ({ name, token: 1 })),
    async stop() {
      for (const [name, set] of [...running]) for (const h of [...set]) await release(name, h);
    },
  };
}
