/** `face_descriptors` and `face_visitors`: the only module that queries them. */
import type { Knex } from "knex";

export interface StoredDescriptor {
  id: number;
  person_id: string | null;
  visitor_id: string | null;
  descriptor: number[];
  source: string | null;
  created_at: string;
}

interface DescriptorRow {
  id: number;
  person_id: string | null;
  visitor_id: string | null;
  descriptor_json: string;
  source: string | null;
  created_at: string;
}

export interface VisitorRow {
  visitor_id: string;
  number: number;
  sighting_count: number;
  first_seen_at: string;
  last_seen_at: string;
  last_sensor_id: string | null;
}

const toDescriptor = (r: DescriptorRow): StoredDescriptor => ({
  id: Number(r.id),
  person_id: r.person_id,
  visitor_id: r.visitor_id,
  descriptor: JSON.parse(r.descriptor_json) as number[],
  source: r.source,
  created_at: r.created_at,
});

export async function allDescriptors(db: Knex): Promise<StoredDescriptor[]> {
  return (await db<DescriptorRow>("face_descriptors").select("*").orderBy("id")).map(toDescriptor);
}

export async function insertDescriptors(
  db: Knex,
  rows: ReadonlyArray<{ person_id?: string | null; visitor_id?: string | null; descriptor: readonly number[]; source: string | null; created_at: string }>,
): Promise<void> {
  if (!rows.length) return;
  await db("face_descriptors").insert(
    rows.map((r) => ({
      person_id: r.person_id ?? null,
      visitor_id: r.visitor_id ?? null,
      descriptor_json: JSON.stringify(r.descriptor),
      source: r.source?.slice(0, 200) ?? null,
      created_at: r.created_at,
    })),
  );
}

/** Each enrolled person's descriptor count and first enrollment time. */
export async function enrollmentCounts(db: Knex): Promise<Map<string, { count: number; created_at: string }>> {
  const rows: Array<{ person_id: string; n: number | string; created_at: string }> = await db("face_descriptors")
    .whereNotNull("person_id")
    .select("person_id")
    .count({ n: "*" })
    .min({ created_at: "created_at" })
    .groupBy("person_id");
  return new Map(rows.map((r) => [String(r.person_id), { count: Number(r.n), created_at: String(r.created_at) }]));
}

export async function deletePersonDescriptors(db: Knex, personId: string): Promise<number> {
  return db("face_descriptors").where({ person_id: personId }).delete();
}

export async function listVisitorRows(db: Knex): Promise<VisitorRow[]> {
  return (await db<VisitorRow>("face_visitors").select("*").orderBy("number")).map((r) => ({
    ...r,
    number: Number(r.number),
    sighting_count: Number(r.sighting_count),
  }));
}

export async function visitorRow(db: Knex, visitorId: string): Promise<VisitorRow | undefined> {
  const r = await db<VisitorRow>("face_visitors").where({ visitor_id: visitorId }).first();
  return r && { ...r, number: Number(r.number), sighting_count: Number(r.sighting_count) };
}

/** A new visitor numbered after the highest so far (numbers are never reused). */
export async function insertVisitor(db: Knex, at: string, sensorId: string | null): Promise<VisitorRow> {
  return db.transaction(async (trx) => {
    const top = await trx("face_visitors").max({ n: "number" }).first();
    const number = Number(top?.n ?? 0) + 1;
    const row: VisitorRow = { visitor_id: `visitor-${number}`, number, sighting_count: 0, first_seen_at: at, last_seen_at: at, last_sensor_id: sensorId };
    await trx("face_visitors").insert(row);
    return row;
  });
}

export async function countVisitorSighting(db: Knex, visitorId: string, at: string, sensorId: string | null): Promise<void> {
  await db("face_visitors").where({ visitor_id: visitorId }).increment("sighting_count", 1).update({ last_seen_at: at, last_sensor_id: sensorId });
}

/** Oldest first beyond `keep`: a visitor's descriptors are capped so matching stays cheap. */
export async function trimVisitorDescriptors(db: Knex, visitorId: string, keep: number): Promise<void> {
  const ids = (await db("face_descriptors").where({ visitor_id: visitorId }).orderBy("id", "desc").offset(keep).select("id")).map((r) => Number(r.id));
  if (ids.length) await db("face_descriptors").whereIn("id", ids).delete();
}

/** A visitor named: their descriptors become the person's enrollment and the visitor is gone. */
export async function moveVisitorToPerson(db: Knex, visitorId: string, personId: string): Promise<number> {
  return db.transaction(async (trx) => {
    const moved = await trx("face_descriptors").where({ visitor_id: visitorId }).update({ visitor_id: null, person_id: personId });
    await trx("face_visitors").where({ visitor_id: visitorId }).delete();
    return Number(moved);
  });
}

export async function deleteVisitor(db: Knex, visitorId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await trx("face_descriptors").where({ visitor_id: visitorId }).delete();
    await trx("face_visitors").where({ visitor_id: visitorId }).delete();
  });
}

/**
 * Retention (`retention.visitors_days`, docs/retention.md): forgets at most `limit` unnamed
 * visitors last seen before the cutoff, with their descriptors; answers how many. The
 * highest-numbered visitor stays, so a number is never given to another face.
 */
export async function pruneVisitorsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return db.transaction(async (trx) => {
    const top = await trx("face_visitors").max({ n: "number" }).first();
    const ids: string[] = (
      await trx("face_visitors")
        .where("last_seen_at", "<", cutoffIso)
        .where("number", "<", Number(top?.n ?? 0))
        .select("visitor_id")
        .limit(limit)
    ).map((r: { visitor_id: string }) => r.visitor_id);
    if (ids.length === 0) return 0;
    await trx("face_descriptors").whereIn("visitor_id", ids).delete();
    const n: number = await trx("face_visitors").whereIn("visitor_id", ids).delete();
    return n;
  });
}
