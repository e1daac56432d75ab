/**
 * With several instances, each other instance is a part (issue 44 §1): up while its heartbeat
 * in the cluster's table is fresh, down (after the link's grace) once it stopped renewing it (a
 * crash, a dead machine). An instance that stopped cleanly leaves the table and the board: a
 * planned stop is nobody's alarm. Read at start and every SAMPLE_EVERY_MS on the app's clock.
 */
import type { ClusterInstance } from "../cluster/cluster";
import type { Clock } from "../core/clock";
import { SAMPLE_EVERY_MS, type PartsBoard } from "./parts-board";

export const instancePartId = (instanceId: string): string => `instance:${instanceId}`;
/** A heartbeat lease is seconds long; a minute late covers a long GC pause or a busy database. */
export const INSTANCE_GRACE_MS = 60_000;

export interface InstanceSource {
  /** The cluster's instances as its table says (cluster.status().instances). */
  instances(): Promise<ClusterInstance[]>;
  /** Told when the table could not be read (the database part says the rest). */
  failed(err: unknown): void;
}

/** Starts watching; returns the stop (and, for tests, a refresh done now). */
export function watchInstances(board: PartsBoard, clock: Clock, src: InstanceSource): { stop: () => void; refresh: () => Promise<void> } {
  const known = new Set<string>();
  let stopped = false;
  const refresh = async (): Promise<void> => {
    let list: ClusterInstance[];
    try {
      list = await src.instances();
    } catch (err) {
      src.failed(err);
      return;
    }
    if (stopped) return;
    const now = new Set<string>();
    for (const i of list) {
      if (i.self) continue;
      const id = instancePartId(i.instance_id);
      now.add(id);
      if (!known.has(id)) {
        board.link(id, "instance", `careflow instance ${i.instance_id} (${i.host})`, INSTANCE_GRACE_MS);
        known.add(id);
      }
      board.report(id, i.alive, i.alive ? undefined : `no heartbeat since ${i.last_heartbeat_at}`);
    }
    for (const id of [...known]) {
      if (now.has(id)) continue;
      board.forget(id);
      known.delete(id);
    }
  };
  let cancel: () => void = () => undefined;
  const tick = () => {
    cancel = clock.at(clock.now() + SAMPLE_EVERY_MS, tick, { background: true });
    void refresh();
  };
  tick();
  return {
    stop: () => {
      stopped = true;
      cancel();
    },
    refresh,
  };
}
