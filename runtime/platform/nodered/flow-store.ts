/**
 * Node-RED's storage module, backed by our store. Flows are rows of `flow_nodes`;
 * credentials, runtime settings, sessions and library entries are kv values. There is no
 * second copy of the flows on disk that could drift from what REST reads.
 */
import type { Knex } from "knex";
import { kvGet, kvSet } from "../db/kv";
import { labelNewSession } from "./editor-sessions";

export type FlowNode = Record<string, unknown> & { id: string; type: string; z?: string };

export async function readFlows(db: Knex): Promise<FlowNode[]> {
  const rows: Array<{ json: string }> = await db("flow_nodes").select("json").orderBy("position");
  return rows.map((r) => JSON.parse(r.json) as FlowNode);
}

/**
 * Which write of the stored flows is there, on PostgreSQL: any write gives the rows it writes
 * the newest transaction id (a deploy replaces them all in one), so the rows' count and highest
 * id change with each one. One small read, where reading and hashing every flow would be many.
 */
export async function storedFlowsMarker(db: Knex): Promise<string> {
  const [row] = (await db("flow_nodes").select(db.raw("count(*) as n, max(xmin::text::bigint) as x"))) as Array<{ n: string | number; x: string | null }>;
  return `${row.n}:${row.x ?? ""}`;
}

/** Replace every flow row in one transaction (what a full deploy means). */
export async function writeFlows(db: Knex | Knex.Transaction, flows: readonly FlowNode[]): Promise<void> {
  const write = async (trx: Knex.Transaction) => {
    await trx("flow_nodes").delete();
    const rows = flows.map((node, position) => ({
      id: node.id,
      z: typeof node.z === "string" && node.z ? node.z : null,
      type: node.type,
      position,
      json: JSON.stringify(node),
    }));
    for (let i = 0; i < rows.length; i += 200) await trx("flow_nodes").insert(rows.slice(i, i + 200));
  };
  if ((db as Knex.Transaction).isTransaction) await write(db as Knex.Transaction);
  else await (db as Knex).transaction(write);
}

/** The contract Node-RED expects of `settings.storageModule`. */
export interface StorageModule {
  init(settings: unknown, runtime?: unknown): Promise<void>;
  getFlows(): Promise<FlowNode[]>;
  saveFlows(flows: FlowNode[], user?: unknown): Promise<void>;
  getCredentials(): Promise<Record<string, unknown>>;
  saveCredentials(credentials: Record<string, unknown>): Promise<void>;
  getSettings(): Promise<Record<string, unknown>>;
  saveSettings(settings: Record<string, unknown>): Promise<void>;
  getSessions(): Promise<Record<string, unknown>>;
  saveSessions(sessions: Record<string, unknown>): Promise<void>;
  getLibraryEntry(type: string, path: string): Promise<unknown>;
  saveLibraryEntry(type: string, path: string, meta: Record<string, unknown>, body: string): Promise<void>;
}

export interface FlowStoreTarget {
  db: Knex;
  now: () => string;
  /** Persists a deploy: validation, the flow rows and everything derived from them, atomically. */
  saveFlows: (flows: readonly FlowNode[]) => Promise<void>;
}

async function kvJson<T>(db: Knex, key: string, fallback: T): Promise<T> {
  const text = await kvGet(db, key);
  return text === undefined ? fallback : (JSON.parse(text) as T);
}

/** The editor sessions as last saved (by any instance). */
export const storedSessions = (db: Knex): Promise<Record<string, unknown>> => kvJson(db, "node-red:sessions", {});

/** A storage module that reads its target at each call, so the store can be swapped. */
export function createStorageModule(target: () => FlowStoreTarget): StorageModule {
  const put = (key: string, value: unknown) => kvSet(target().db, key, JSON.stringify(value), target().now());
  return {
    init: async () => undefined,
    getFlows: () => readFlows(target().db),
    saveFlows: (flows) => target().saveFlows(flows),
    getCredentials: () => kvJson(target().db, "node-red:credentials", {}),
    saveCredentials: (c) => put("node-red:credentials", c),
    getSettings: () => kvJson(target().db, "node-red:settings", {}),
    saveSettings: (s) => put("node-red:settings", s),
    getSessions: () => storedSessions(target().db),
    saveSessions: (s) => {
      labelNewSession(s);
      return put("node-red:sessions", s);
    },
    getLibraryEntry: async (type, path) => {
      const entries = await kvJson<Record<string, { meta: Record<string, unknown>; body: string }>>(target().db, `node-red:library:${type}`, {});
      if (entries[path]) return entries[path].body;
      // A directory listing: the entries below `path`, as Node-RED's file store answers.
      const prefix = path ? `${path.replace(/\/$/, "")}/` : "";
      const names = new Set<string>();
      const files: Array<Record<string, unknown>> = [];
      for (const [p, e] of Object.entries(entries)) {
        if (!p.startsWith(prefix)) continue;
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf("/");
        if (slash >= 0) names.add(rest.slice(0, slash));
        else files.push({ ...e.meta, fn: rest });
      }
      return [...names, ...files];
    },
    saveLibraryEntry: async (type, path, meta, body) => {
      const key = `node-red:library:${type}`;
      const entries = await kvJson<Record<string, unknown>>(target().db, key, {});
      entries[path] = { meta, body };
      await put(key, entries);
    },
  };
}
