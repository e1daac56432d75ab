/**
 * The shared media store (`cluster.enabled`): each object a row of `media_objects` (its bytes
 * as bytea) in the database every instance uses. A put of a name already stored only moves its
 * `modified_ms` (names are content-addressed); a delete with a grace is one statement, so a put
 * by another instance between the sweep's check and its delete cannot lose the object.
 */
import type { Knex } from "knex";
import type { MediaObjectStore, ObjectStat } from "./object-store";

interface StatRow {
  name: string;
  byte_size: number | string;
  modified_ms: number | string;
}

const toStat = (r: StatRow): ObjectStat => ({ name: r.name, size: Number(r.byte_size), modified_ms: Number(r.modified_ms) });
const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function pgObjects(db: Knex): MediaObjectStore {
  const table = () => db("media_objects");
  return {
    async put(name, bytes, nowMs) {
      await table().insert({ name, bytes, byte_size: bytes.length, modified_ms: nowMs }).onConflict("name").merge(["modified_ms"]);
    },
    async get(name) {
      const row: { bytes: Buffer } | undefined = await table().select("bytes").where({ name }).first();
      return row ? Buffer.from(row.bytes) : null;
    },
    async stat(name) {
      const row: StatRow | undefined = await table().select("name", "byte_size", "modified_ms").where({ name }).first();
      return row ? toStat(row) : null;
    },
    async list(prefix) {
      const rows: StatRow[] = await table()
        .select("name", "byte_size", "modified_ms")
        .whereRaw("name like ? escape '\\'", [likePrefix(prefix.endsWith("/") ? prefix : `${prefix}/`)])
        .orderBy("name");
      return rows.map(toStat);
    },
    async delete(name, unlessPutAfter) {
      const q = table().where({ name });
      if (unlessPutAfter !== undefined) q.where("modified_ms", "<=", unlessPutAfter);
      return (await q.delete()) > 0;
    },
  };
}
