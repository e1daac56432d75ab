/**
 * The media store in an S3-compatible object store (`media.store_url`, MinIO): each object at
 * `<prefix><store id>/<name>` in the bucket. The store id (kv `media:store-id`, the one
 * media-root.ts uses) keeps two careflow stores pointed at one bucket (a PostgreSQL tried with
 * a SQLite household's settings) from ever sweeping each other's objects; the instances of a
 * cluster share a database, so one id and one folder.
 *
 * A put records the app clock's time as metadata (`x-amz-meta-careflow-put-ms`), which stat and
 * the delete's grace read: the store's own Last-Modified is its clock, not the app's. A listing
 * has only Last-Modified to give (ListObjectsV2 carries no metadata). A delete with a grace is
 * a HEAD then a DELETE: a put by another instance in between can be lost (PostgreSQL's store
 * does it in one statement), a second-long window every sweep chunk.
 */
import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { isoAt } from "../../platform/core/clock";
import { ServiceUnavailableError } from "../../platform/core/errors";
import { kvSetIfAbsent } from "../../platform/db/kv";
import { reportServiceCall } from "../../platform/health/service-calls";
import { STORE_ID_KEY } from "./media-root";
import type { MediaObjectStore, ObjectStat } from "./object-store";
import { S3Client, s3Location, type S3Location } from "./s3-client";

/** The settings the store reads (`media.*`). */
export interface S3StoreSettings {
  store_url: string | null;
  store_region: string;
  store_timeout_seconds: number;
}

const PUT_MS = "x-amz-meta-careflow-put-ms";
const SAFE_NAME = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;
const TYPES: Readonly<Record<string, string>> = {
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  mp3: "audio/mpeg",
  wav: "audio/wav",
};

const typeOf = (name: string): string => TYPES[/\.([a-z0-9]+)$/.exec(name)?.[1] ?? ""] ?? "application/octet-stream";

const checked = (name: string): string => {
  // Names come from our own code and rows; the check keeps a bad one from naming another key.
  if (!SAFE_NAME.test(name) || name.split("/").some((s) => s === "..")) throw new Error(`not a media object name: ${name.slice(0, 80)}`);
  return name;
};

const roots = new WeakMap<Knex, Promise<string>>();

/** `<prefix><store id>/`: where this store's objects are in the bucket, decided once per database. */
function rootOf(db: Knex, loc: S3Location): Promise<string> {
  let id = roots.get(db);
  if (!id) {
    id = kvSetIfAbsent(db, STORE_ID_KEY, randomBytes(8).toString("hex"), isoAt(Date.now()));
    id.catch(() => roots.delete(db));
    roots.set(db, id);
  }
  return id.then((storeId) => `${loc.prefix}${storeId}/`);
}

const decodeXml = (s: string): string =>
  s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e] ?? "");

export interface S3Store extends MediaObjectStore {
  /** A presigned GET of the object, valid for `ttlSeconds`. */
  presign(name: string, ttlSeconds: number): Promise<string>;
}

export function s3Objects(db: Knex, settings: S3StoreSettings, wallClock?: () => number): S3Store {
  if (!settings.store_url) throw new Error("media.store_url is not set");
  const loc = s3Location(settings.store_url, settings.store_region, settings.store_timeout_seconds);
  // Each real request tells the media store's part how the store is (issue 44 §1); the check in
  // s3Problem does not, so a failed check is judged by the part's own grace.
  const client = new S3Client(loc, wallClock, (up, detail) => reportServiceCall({ service: "media", url: loc.where, up, detail }));
  const keyOf = async (name: string): Promise<string> => `${await rootOf(db, client.loc)}${checked(name)}`;

  const stat = async (name: string): Promise<ObjectStat | null> => {
    const res = await client.request({ method: "HEAD", key: await keyOf(name) });
    if (res.status === 404) return null;
    if (res.status !== 200) throw client.refused(`HEAD ${name}`, res);
    const putMs = Number(res.headers.get(PUT_MS));
    const modified = Number.isFinite(putMs) && putMs > 0 ? putMs : Date.parse(res.headers.get("last-modified") ?? "");
    return { name, size: Number(res.headers.get("content-length") ?? 0), modified_ms: modified || 0 };
  };

  return {
    async put(name, bytes, nowMs) {
      const res = await client.request({
        method: "PUT",
        key: await keyOf(name),
        body: bytes,
        headers: { "Content-Type": typeOf(name), [PUT_MS]: String(Math.round(nowMs)) },
      });
      if (res.status !== 200) throw client.refused(`PUT ${name}`, res);
    },
    async get(name) {
      const res = await client.request({ method: "GET", key: await keyOf(name) });
      if (res.status === 404) return null;
      if (res.status !== 200) throw client.refused(`GET ${name}`, res);
      return res.body;
    },
    stat,
    async list(prefix) {
      const root = await rootOf(db, client.loc);
      const folder = `${root}${prefix.endsWith("/") ? prefix : `${prefix}/`}`;
      const out: ObjectStat[] = [];
      let token: string | undefined;
      do {
        const query: Record<string, string> = { "list-type": "2", prefix: folder, ...(token ? { "continuation-token": token } : {}) };
        const res = await client.request({ method: "GET", query });
        if (res.status !== 200) throw client.refused(`a listing of ${prefix}`, res);
        const xml = res.body.toString("utf8");
        for (const [, entry] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
          const key = decodeXml(/<Key>([^<]*)<\/Key>/.exec(entry)?.[1] ?? "");
          const name = key.slice(root.length);
          if (!key.startsWith(folder) || !SAFE_NAME.test(name)) continue;
          const modified = Date.parse(/<LastModified>([^<]*)<\/LastModified>/.exec(entry)?.[1] ?? "");
          out.push({ name, size: Number(/<Size>(\d+)<\/Size>/.exec(entry)?.[1] ?? 0), modified_ms: modified || 0 });
        }
        const truncated = /<IsTruncated>true<\/IsTruncated>/.test(xml);
        token = truncated ? decodeXml(/<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(xml)?.[1] ?? "") : undefined;
        if (truncated && !token) throw new ServiceUnavailableError(`the media store at ${client.loc.where} cut a listing short without a continuation token`);
      } while (token);
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async delete(name, unlessPutAfter) {
      if (unlessPutAfter !== undefined) {
        const st = await stat(name);
        if (!st || st.modified_ms > unlessPutAfter) return false;
      }
      const res = await client.request({ method: "DELETE", key: await keyOf(name) });
      if (res.status !== 204 && res.status !== 200) throw client.refused(`DELETE ${name}`, res);
      return true;
    },
    async presign(name, ttlSeconds) {
      return client.presignGet(await keyOf(name), ttlSeconds);
    },
  };
}

/** Why the store cannot be used now (unreachable, no such bucket, credentials refused), or null. */
export async function s3Problem(settings: S3StoreSettings, timeoutSeconds = 3): Promise<string | null> {
  if (!settings.store_url) return null;
  const loc = s3Location(settings.store_url, settings.store_region, Math.min(timeoutSeconds, settings.store_timeout_seconds));
  const client = new S3Client(loc);
  try {
    // ListObjectsV2 of one key: the bucket exists and these credentials may read it.
    const res = await client.request({ method: "GET", query: { "list-type": "2", "max-keys": "1" } });
    return res.status === 200 ? null : client.refused("a listing of the bucket", res).message;
  } catch (err) {
    return (err as Error).message;
  }
}
