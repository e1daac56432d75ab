/**
 * Visitors: unknown faces given stable ids (`visitor-3`) by clustering their descriptors. An
 * unknown face within the threshold of a visitor's descriptors is that visitor; otherwise, if
 * the detector is sure it is a face (score ≥ 0.7), it is a new visitor. Each visitor keeps its
 * 20 newest descriptors, and counts one sighting per batch it was seen in. A caregiver names
 * a visitor (`POST /visitors/{id}/name`): its descriptors become a person's enrollment.
 */
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { NotFoundError, ValidationError } from "../../platform/core/errors";
import { createPerson, getPerson, setEnrollment } from "../persons/persons.service";
import {
  allDescriptors,
  countVisitorSighting,
  deleteVisitor,
  enrollmentCounts,
  insertDescriptors,
  insertVisitor,
  listVisitorRows,
  moveVisitorToPerson,
  trimVisitorDescriptors,
  visitorRow,
  type StoredDescriptor,
  type VisitorRow,
} from "./descriptors.store";
import { bestMatch } from "./matching";

const NEW_VISITOR_MIN_SCORE = 0.7;
const KEEP_DESCRIPTORS = 20;

export class VisitorBook {
  private known: StoredDescriptor[] | undefined;
  private readonly seen = new Set<string>();

  constructor(
    private readonly ctx: PlatformContext,
    private readonly threshold: number,
  ) {}

  /** The visitor this unknown face is, made when new; null when the face is too uncertain to start one. */
  async assign(descriptor: number[], score: number, source: string, sensorId: string | null): Promise<string | null> {
    this.known ??= (await allDescriptors(this.ctx.db)).filter((d) => d.visitor_id);
    const m = bestMatch(descriptor, this.known, "visitor_id");
    let id: string;
    if (m && m.confidence >= this.threshold) id = m.id;
    else if (score >= NEW_VISITOR_MIN_SCORE) id = (await insertVisitor(this.ctx.db, isoNow(this.ctx.clock), sensorId)).visitor_id;
    else return null;
    const row = { visitor_id: id, descriptor, source, created_at: isoNow(this.ctx.clock) };
    await insertDescriptors(this.ctx.db, [row]);
    await trimVisitorDescriptors(this.ctx.db, id, KEEP_DESCRIPTORS);
    this.known.push({ id: 0, person_id: null, ...row });
    this.seen.add(id);
    return id;
  }

  async countSightings(at: string, sensorId: string | null): Promise<void> {
    for (const id of this.seen) await countVisitorSighting(this.ctx.db, id, at, sensorId);
  }
}

export interface Visitor {
  visitor_id: string;
  sighting_count: number;
  first_seen_at: string;
  last_seen_at: string;
  last_sensor_id: string | null;
  embedding_count: number;
}

export async function listVisitors(ctx: PlatformContext): Promise<Visitor[]> {
  const descriptors = await allDescriptors(ctx.db);
  return (await listVisitorRows(ctx.db)).map((v) => visitorOut(v, descriptors));
}

export async function getVisitor(ctx: PlatformContext, visitorId: string): Promise<Visitor> {
  const row = await visitorRow(ctx.db, visitorId);
  if (!row) throw new NotFoundError(`Visitor ${visitorId} not found`);
  return visitorOut(row, await allDescriptors(ctx.db));
}

const visitorOut = (v: VisitorRow, descriptors: readonly StoredDescriptor[]): Visitor => ({
  visitor_id: v.visitor_id,
  sighting_count: v.sighting_count,
  first_seen_at: v.first_seen_at,
  last_seen_at: v.last_seen_at,
  last_sensor_id: v.last_sensor_id,
  embedding_count: descriptors.filter((d) => d.visitor_id === v.visitor_id).length,
});

/**
 * Names a visitor: `{person_id}` of an existing person, or `{display_name}` (and optional
 * `person_id`) for a new one. The visitor's descriptors join the person's enrollment and the
 * visitor id is retired (its number is never given again).
 */
export async function nameVisitor(
  ctx: PlatformContext,
  visitorId: string,
  body: unknown,
): Promise<{ person_id: string; display_name: string; embedding_count: number; visitor_id: string }> {
  await getVisitor(ctx, visitorId);
  const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  let personId: string;
  if (typeof b.display_name === "string") {
    personId = (await createPerson(ctx, { display_name: b.display_name, ...(typeof b.person_id === "string" ? { person_id: b.person_id } : {}) })).person_id;
  } else if (typeof b.person_id === "string") {
    personId = (await getPerson(ctx, b.person_id)).person_id;
  } else {
    throw new ValidationError("body: give person_id (an existing person) or display_name (a new one)");
  }
  await moveVisitorToPerson(ctx.db, visitorId, personId);
  const counts = (await enrollmentCounts(ctx.db)).get(personId);
  await setEnrollment(ctx, personId, { embedding_count: counts?.count ?? 0, enrolled_at: counts?.created_at ?? isoNow(ctx.clock) });
  const person = await getPerson(ctx, personId);
  return { person_id: person.person_id, display_name: person.display_name, embedding_count: person.embedding_count, visitor_id: visitorId };
}

export async function removeVisitor(ctx: PlatformContext, visitorId: string): Promise<void> {
  await getVisitor(ctx, visitorId);
  await deleteVisitor(ctx.db, visitorId);
}
