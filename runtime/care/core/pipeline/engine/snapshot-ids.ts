/**
 * Ids of graph snapshots in the store. Every run of one rule version shares one snapshot
 * row, found by the digest of its JSON; like run ids, snapshot ids are handed out in process
 * (one writer per database), so a new snapshot's row is written in the same group commit as
 * the first run that uses it. Instances of a cluster share the table: a new snapshot gets a
 * provisional (negative) id here, and the writer, inserting it or finding the row another
 * instance wrote, tells its real id (`resolved`).
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import { toJsonText } from "../../../../platform/db/json-column";
import type { SqlValue } from "./execution-rows";
import type { GraphSnapshot } from "./graph-snapshot";

interface Ref {
  id: number;
  /** The row to write, until it is written. */
  row?: SqlValue[];
}

export class SnapshotIds {
  private readonly byDigest = new Map<string, Ref>();
  private readonly byGraph = new WeakMap<GraphSnapshot, Ref>();
  private nextId = 1;
  private nextProvisional = -1;

  constructor(
    private readonly now: () => string,
    /** Several instances write snapshots (a cluster): ids are the store's, not handed out here. */
    private readonly shared = false,
  ) {}

  async init(db: Knex): Promise<void> {
    const rows: Array<{ id: number | string; digest: string }> = await db("graph_snapshots").select("id", "digest");
    for (const r of rows) this.byDigest.set(r.digest, { id: Number(r.id) });
    this.nextId = rows.reduce((m, r) => Math.max(m, Number(r.id)), 0) + 1;
  }

  /** The snapshot's id, and its row when the store does not have it yet. */
  refOf(graph: GraphSnapshot): Ref {
    let ref = this.byGraph.get(graph);
    if (ref) return ref;
    const json = toJsonText(graph);
    const digest = createHash("sha256").update(json).digest("hex");
    ref = this.byDigest.get(digest);
    if (!ref) {
      const id = this.shared ? this.nextProvisional-- : this.nextId++;
      ref = { id, row: [id, graph.rule_id, digest, json, this.now()] };
      this.byDigest.set(digest, ref);
    }
    this.byGraph.set(graph, ref);
    return ref;
  }

  /** After a commit in a cluster: the store's ids of the snapshots written under provisional ones. */
  resolved(ids: ReadonlyMap<number, number>): void {
    for (const ref of this.byDigest.values()) {
      const id = ref.row ? ids.get(ref.id) : undefined;
      if (id === undefined) continue;
      ref.id = id;
      delete ref.row;
    }
  }

  /** After a commit that wrote these rows. */
  written(ids: readonly number[]): void {
    const set = new Set(ids);
    for (const ref of this.byDigest.values()) if (ref.row && set.has(ref.id)) delete ref.row;
  }
}
