/**
 * A deploy on one instance is live on all of them (docs/cluster.md "Flows"). The flows are in
 * the shared store already; the instance that stored a deploy says so on the cluster link, and
 * each other instance runs the stored flows again when they differ from the ones it runs
 * (Node-RED's own revision: the sha256 of the stored flows' JSON), which also re-reads every
 * rule the triggers hold. A notice missed while the broker was away is made up for at each
 * (re)connection, and before a REST rule read or write, which must start from the stored flows.
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type { ClusterLink } from "../../platform/cluster/cluster-link";
import type { Logger } from "../../platform/core/logger";
import { readFlows, storedFlowsMarker } from "../../platform/nodered/flow-store";

export interface RunningFlows {
  /** The revision of the flows running now. */
  rev(): Promise<string>;
  /** Runs the stored flows (in-flight runs finished first). */
  reload(): Promise<void>;
}

export interface SharedDeploys {
  /** This instance stored a deploy: the others reload. */
  announce(): void;
  /** Runs the stored flows if they are not the ones running; resolves once they run. */
  catchUp(): Promise<void>;
  stop(): void;
}

const CHANNEL = "flows.deployed";

/** The revision Node-RED gives the flows it reads from our store. */
export const storedRevision = async (db: Knex): Promise<string> =>
  createHash("sha256")
    .update(JSON.stringify(await readFlows(db)))
    .digest("hex");

export function shareDeploys(opts: { db: Knex; link: ClusterLink; log: Logger; running: RunningFlows }): SharedDeploys {
  const { db, link, log, running } = opts;
  // One catch-up at a time; a notice arriving meanwhile is served by one more after it.
  let current: Promise<void> | null = null;
  let again = false;
  /** The stored flows' marker when they were last found to be the ones running here. */
  let runningMarker: string | null = null;
  const check = async (from: string | null): Promise<void> => {
    // One small read at most checks (a run fired over REST checks); the flows only when it changed.
    const marker = await storedFlowsMarker(db);
    if (marker === runningMarker) return;
    const [stored, live] = await Promise.all([storedRevision(db), running.rev()]);
    if (stored !== live) {
      await running.reload();
      log.info({ deployed_on: from ?? "another instance", rev: stored }, "cluster: flows deployed elsewhere are running here");
    }
    // Read before the comparison: a deploy landing in between changes the marker, so it is checked next time.
    runningMarker = marker;
  };
  const catchUp = (from: string | null = null): Promise<void> => {
    if (current) {
      again = true;
      return current;
    }
    current = (async () => {
      try {
        do {
          again = false;
          await check(from);
        } while (again);
      } finally {
        current = null;
      }
    })();
    return current;
  };
  const failed = (err: unknown) => log.error({ err }, "cluster: running the flows deployed on another instance failed");
  const offs = [link.subscribe(CHANNEL, (_data, from) => void catchUp(from).catch(failed)), link.onConnected(() => void catchUp().catch(failed))];
  return {
    announce: () => link.publish(CHANNEL, {}),
    catchUp: () => catchUp(),
    stop: () => {
      for (const off of offs) off();
    },
  };
}
