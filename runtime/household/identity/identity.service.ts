/**
 * Face identity: enrollment, identification of camera frames, visitors. One per app
 * (`identity(ctx)`); the built-in engine's worker starts at the first use and stops with the
 * app (`closeIdentity`, registered in the app's Lifecycle). The backend is read from the
 * settings at each call (`recognition.backend`): `builtin` (in-process, descriptors in the
 * store) or `remote` (the household's identification service).
 */
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { NotFoundError, ServiceUnavailableError, ValidationError } from "../../platform/core/errors";
import { getPerson, listPersons, setEnrollment, type Person } from "../persons/persons.service";
import { WorkerFaceEngine } from "./builtin-engine";
import { deletePersonDescriptors, insertDescriptors } from "./descriptors.store";
import { isProblem, type FaceEngine } from "./engine";
import { enrollRemote, unenrollRemote } from "./remote.client";

export const MIN_PHOTOS = 5;
export const MAX_PHOTOS = 10;

const engines = new WeakMap<object, FaceEngine>();

/** The app's face engine (built, not started: its worker starts at the first request). */
export function faceEngine(ctx: Pick<PlatformContext, "db">, make: () => FaceEngine = () => new WorkerFaceEngine()): FaceEngine {
  let e = engines.get(ctx.db);
  if (!e) {
    e = make();
    engines.set(ctx.db, e);
  }
  return e;
}

/** Stops the worker thread, if it was started. */
export async function closeIdentity(ctx: Pick<PlatformContext, "db">): Promise<void> {
  const e = engines.get(ctx.db);
  engines.delete(ctx.db);
  await e?.close();
}

export const remoteSettings = (ctx: PlatformContext): { url: string; timeout_seconds: number } => ({
  url: ctx.settings.recognition.url,
  timeout_seconds: ctx.settings.recognition.timeout_seconds,
});

export interface Photo {
  name: string;
  bytes: Uint8Array;
}

export interface Enrollment {
  person_id: string;
  display_name: string;
  embedding_count: number;
  created_at: string | null;
  backend: string;
}

const enrollmentOf = (p: Person, backend: string): Enrollment => ({
  person_id: p.person_id,
  display_name: p.display_name,
  embedding_count: p.embedding_count,
  created_at: p.enrolled_at,
  backend,
});

/**
 * `POST /persons/{id}/enroll`: 5–10 photos, each with exactly one face (else 422 naming every
 * refused photo and why, and nothing is stored). The new descriptors replace the person's old ones.
 */
export async function enroll(ctx: PlatformContext, personId: string, photos: readonly Photo[]): Promise<Enrollment> {
  const person = await getPerson(ctx, personId);
  if (photos.length < MIN_PHOTOS || photos.length > MAX_PHOTOS) {
    throw new ValidationError(`photos: send ${MIN_PHOTOS} to ${MAX_PHOTOS} photos (got ${photos.length})`);
  }
  const now = isoNow(ctx.clock);
  if (ctx.settings.recognition.backend === "remote") {
    const answer = await enrollRemote(remoteSettings(ctx), { person_id: person.person_id, name: person.display_name }, photos);
    if (!answer.ok) throw new ServiceUnavailableError(answer.reason);
    await setEnrollment(ctx, personId, { embedding_count: answer.value.embedding_count, enrolled_at: now });
    return enrollmentOf(await getPerson(ctx, personId), "remote");
  }
  let results;
  try {
    results = await faceEngine(ctx).detect(photos.map((p) => p.bytes));
  } catch (err) {
    throw new ServiceUnavailableError(`face engine unavailable: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Every refused photo is named, not only the first: the family retakes them all at once.
  const descriptors: number[][] = [];
  const refused: string[] = [];
  results.forEach((r, i) => {
    const name = photos[i].name;
    if (isProblem(r)) refused.push(`photos: '${name}' is ${r.error}`);
    else if (r.faces.length === 0) refused.push(`photos: no face found in '${name}'`);
    else if (r.faces.length > 1) refused.push(`photos: '${name}' shows ${r.faces.length} faces (each photo must show exactly one)`);
    else descriptors.push(r.faces[0].descriptor);
  });
  if (refused.length > 0) throw new ValidationError(refused.join("; "));
  await ctx.db.transaction(async (trx) => {
    await deletePersonDescriptors(trx, personId);
    await insertDescriptors(
      trx,
      descriptors.map((d, i) => ({ person_id: personId, descriptor: d, source: photos[i].name, created_at: now })),
    );
  });
  await setEnrollment(ctx, personId, { embedding_count: descriptors.length, enrolled_at: now });
  return enrollmentOf(await getPerson(ctx, personId), "builtin");
}

export async function getEnrollment(ctx: PlatformContext, personId: string): Promise<Enrollment> {
  const person = await getPerson(ctx, personId);
  if (!person.enrolled) throw new NotFoundError(`Person ${personId} is not enrolled`);
  return enrollmentOf(person, ctx.settings.recognition.backend);
}

export async function deleteEnrollment(ctx: PlatformContext, personId: string): Promise<void> {
  await getPerson(ctx, personId);
  if (ctx.settings.recognition.backend === "remote") {
    const answer = await unenrollRemote(remoteSettings(ctx), personId);
    if (!answer.ok) throw new ServiceUnavailableError(answer.reason);
  }
  await deletePersonDescriptors(ctx.db, personId);
  await setEnrollment(ctx, personId, { embedding_count: 0, enrolled_at: null });
}

/** `GET /persons/enrolled`: every enrolled member with its embedding count and enrollment date. */
export async function listEnrollments(ctx: PlatformContext): Promise<Array<Pick<Person, "person_id" | "display_name" | "embedding_count" | "enrolled_at">>> {
  return (await listPersons(ctx))
    .filter((p) => p.enrolled)
    .map(({ person_id, display_name, embedding_count, enrolled_at }) => ({ person_id, display_name, embedding_count, enrolled_at }));
}
