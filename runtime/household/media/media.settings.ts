/** The `media` and `aggregator` settings sections: where camera frames are kept and how they are batched (docs/media.md). */
import { z } from "zod";

/**
 * Why `url` is no S3 store URL (`http(s)://KEY:SECRET@host[:port]/bucket[/prefix]`), or null.
 * Shared by the schema and CAREFLOW_MEDIA_STORE_URL, which bypasses it.
 */
export function storeUrlProblem(url: string): string | null {
  const shape = "an S3-compatible store as http(s)://ACCESS_KEY:SECRET_KEY@host:port/bucket, e.g. http://careflow:secret@127.0.0.1:9000/careflow-media";
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `not a URL; ${shape}`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return `${u.protocol}// is not spoken; ${shape}`;
  if (!u.username || !u.password) return `the access key and secret key are missing; ${shape}`;
  if (u.search || u.hash) return `takes no query or fragment; ${shape}`;
  const bucket = u.pathname.split("/")[1] ?? "";
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    return `'${bucket}' is no bucket name (3 to 63 lower-case letters, digits, dots and hyphens); ${shape}`;
  return null;
}

// Camera frames (household/media, docs/media.md): content-addressed under the data dir,
// served by signed URLs that expire. 900 s: long enough for a speaker or a chat server to
// fetch a frame it was handed in an alert, short enough that a leaked URL soon stops working.
export const mediaSettings = z
  .object({
    signed_url_ttl_seconds: z.number().int().positive().max(604_800).default(900),
    // An S3-compatible store (design decision 7, MinIO): `http(s)://KEY:SECRET@host:port/bucket[/prefix]`,
    // path-style like the tracking keyframes; media then lives there and links are presigned
    // S3 URLs. The credentials ride in the URL like DATABASE_URL's (docs/decisions.md);
    // CAREFLOW_MEDIA_STORE_URL keeps them out of the settings file.
    store_url: z
      .string()
      .nullable()
      .default(null)
      .superRefine((v, c) => {
        const problem = v === null ? null : storeUrlProblem(v);
        if (problem) c.addIssue({ code: "custom", message: problem });
      }),
    store_region: z.string().min(1).default("us-east-1"),
    // One request to the store (a frame's put, a get); a camera's upload waits at most this.
    store_timeout_seconds: z.number().positive().max(120).default(10),
  })
  .strict()
  .prefault({});

// The camera event aggregator (spec "Limits": the ingest's batching per sensor); frames are
// deleted from the media store after the retention.
export const aggregatorSettings = z
  .object({
    // Off: camera frames are still stored but start no batch, and camera_media_poll answers
    // success=false with an empty payload (spec, camera_media_poll).
    enabled: z.boolean().default(true),
    batch_size: z.number().int().positive().default(5),
    window_seconds: z.number().positive().default(10),
    cooldown_seconds: z.number().min(0).default(30),
    media_retention_hours: z.number().positive().default(24),
  })
  .strict()
  .prefault({});
