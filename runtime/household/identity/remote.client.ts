/**
 * The remote backend: the household's own identification service (`recognition.url`), as the
 * spec describes it. Wire shape (docs/decisions.md, "Identification service protocol"):
 * `POST {url}/identify` (multipart: file `image`, fields `save_guest_images`, `threshold`) →
 * `{detections: [{identity, confidence, bbox, embedding?}]}`; `POST {url}/identify-batch`
 * (files `images`, same fields) → `{results: [{detections}, …]}` one per frame;
 * `POST {url}/enroll` (fields `person_id`, `name`, files `images`) → `{embedding_count}`;
 * `DELETE {url}/enroll/{person_id}`. `identity` is the matched name or `unknown`.
 */

export interface RemoteDetection {
  identity: string;
  confidence: number;
  bbox: number[];
  /** A descriptor, when the service gives one: unknown faces then get visitor ids here too. */
  embedding: number[] | null;
}

export interface RemoteSettings {
  url: string;
  timeout_seconds: number;
}

export type Answer<T> = { ok: true; value: T } | { ok: false; reason: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const nums = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === "number" && Number.isFinite(x)) : []);

function detection(v: unknown): RemoteDetection | null {
  if (!isObj(v) || typeof v.identity !== "string" || typeof v.confidence !== "number") return null;
  const bbox = nums(v.bbox);
  if (bbox.length !== 4) return null;
  const embedding = nums(v.embedding);
  return { identity: v.identity, confidence: Math.max(0, Math.min(1, v.confidence)), bbox, embedding: embedding.length ? embedding : null };
}

const detections = (v: unknown): RemoteDetection[] => (isObj(v) && Array.isArray(v.detections) ? v.detections.flatMap((d) => detection(d) ?? []) : []);

async function call(settings: RemoteSettings, path: string, init: RequestInit, signal?: AbortSignal): Promise<Answer<unknown>> {
  const timeout = AbortSignal.timeout(settings.timeout_seconds * 1000);
  const url = settings.url.replace(/\/+$/, "") + path;
  try {
    const res = await fetch(url, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    const text = await res.text();
    if (!res.ok) return { ok: false, reason: `the identification service answered ${res.status} at ${path}${text ? `: ${text.slice(0, 200)}` : ""}` };
    try {
      return { ok: true, value: text ? (JSON.parse(text) as unknown) : {} };
    } catch {
      return { ok: false, reason: `the identification service's answer at ${path} is not JSON` };
    }
  } catch (err) {
    const why = timeout.aborted ? `timed out after ${settings.timeout_seconds} s` : `unreachable (${err instanceof Error ? err.message : String(err)})`;
    return { ok: false, reason: `the identification service at ${settings.url} is ${why}` };
  }
}

function form(fields: Record<string, string>, field: string, images: readonly Uint8Array[], names?: readonly string[]): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  images.forEach((img, i) => f.append(field, new Blob([img]), names?.[i] ?? `frame-${i + 1}.jpg`));
  return f;
}

/** One frame's detections per image: `/identify` for one, `/identify-batch` for more. */
export async function identifyRemote(
  settings: RemoteSettings,
  images: readonly Uint8Array[],
  opts: { threshold: number; save_guest_images: boolean },
  signal?: AbortSignal,
): Promise<Answer<RemoteDetection[][]>> {
  const fields = { threshold: String(opts.threshold), save_guest_images: String(opts.save_guest_images) };
  if (images.length === 1) {
    const raw = await call(settings, "/identify", { method: "POST", body: form(fields, "image", images) }, signal);
    if (!raw.ok) return raw;
    if (!isObj(raw.value)) return { ok: false, reason: "the identification service's answer is not an object" };
    return { ok: true, value: [detections(raw.value)] };
  }
  const raw = await call(settings, "/identify-batch", { method: "POST", body: form(fields, "images", images) }, signal);
  if (!raw.ok) return raw;
  if (!isObj(raw.value) || !Array.isArray(raw.value.results)) return { ok: false, reason: "the identification service's batch answer has no results list" };
  const results = raw.value.results.map(detections);
  while (results.length < images.length) results.push([]);
  return { ok: true, value: results.slice(0, images.length) };
}

export async function enrollRemote(
  settings: RemoteSettings,
  person: { person_id: string; name: string },
  photos: ReadonlyArray<{ name: string; bytes: Uint8Array }>,
): Promise<Answer<{ embedding_count: number }>> {
  const raw = await call(settings, "/enroll", {
    method: "POST",
    body: form(
      person,
      "images",
      photos.map((p) => p.bytes),
      photos.map((p) => p.name),
    ),
  });
  if (!raw.ok) return raw;
  const count = isObj(raw.value) && typeof raw.value.embedding_count === "number" ? raw.value.embedding_count : photos.length;
  return { ok: true, value: { embedding_count: count } };
}

export async function unenrollRemote(settings: RemoteSettings, personId: string): Promise<Answer<unknown>> {
  return call(settings, `/enroll/${encodeURIComponent(personId)}`, { method: "DELETE" });
}
