/**
 * The tracking service's keyframe store: the S3-compatible object store (MinIO) where the JPEG
 * of each scene sample lives (`SceneSample.minio_key`, settings `cts.keyframes`). One
 * operation, S3 GetObject, addressed path-style (`{endpoint}/{bucket}/{key}`, as MinIO is) and
 * signed with AWS Signature V4 by `aws4`. Answers the bytes, or a sentence saying why there are
 * none (store down, object missing, credentials refused); an abort of the caller is thrown.
 */
import aws4 from "aws4";
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import type { CtsSettings } from "../../../../settings";
import { deadline } from "../llm/deadline";

export const KEYFRAME_STORE = "keyframe store";

/** A keyframe larger than this is no keyframe the scene service should get. */
export const MAX_KEYFRAME_BYTES = 16 * 1024 * 1024;

export type KeyframeSettings = CtsSettings["keyframes"];

/** S3 encodes each path segment by RFC 3986 (only `A-Za-z0-9-._~` stay), slashes kept. */
const encodeSegment = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The object's path-style path: `/{bucket}/{key}`, the key's segments encoded. */
export const objectPath = (bucket: string, key: string): string => `/${encodeSegment(bucket)}/${key.split("/").map(encodeSegment).join("/")}`;

/** The `<Code>` (and `<Message>`) of an S3 error body, when it has one. */
function s3Error(body: string): string {
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1];
  const message = /<Message>([^<]{1,200})<\/Message>/.exec(body)?.[1];
  return code ? `: ${code}${message ? ` (${message})` : ""}` : "";
}

const causeOf = (err: unknown): string => {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
};

export async function getKeyframe(settings: KeyframeSettings, key: string, signal: AbortSignal): Promise<ServiceAnswer<Uint8Array>> {
  if (!settings.endpoint) return { ok: false, reason: `the ${KEYFRAME_STORE} is not configured (cts.keyframes.endpoint is null)` };
  const url = new URL(settings.endpoint + objectPath(settings.bucket, key));
  // Signed with the machine's real time, never the app's clock: the store refuses a request
  // whose date is off by more than 15 minutes. `host` is what fetch sends as Host.
  const signed = aws4.sign(
    { host: url.host, path: url.pathname, method: "GET", service: "s3", region: settings.region, headers: {} },
    { accessKeyId: settings.access_key, secretAccessKey: settings.secret_key },
  );
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(signed.headers ?? {})) if (k.toLowerCase() !== "host" && v !== undefined) headers[k] = String(v);
  const where = `${settings.endpoint}/${settings.bucket}`;
  const d = deadline(settings.timeout_seconds, signal);
  try {
    const res = await fetch(url, { method: "GET", headers, signal: d.signal });
    if (!res.ok) return { ok: false, reason: `the ${KEYFRAME_STORE} answered GET ${key} with HTTP ${res.status}${s3Error(await res.text())}` };
    const length = Number(res.headers.get("content-length") ?? "0");
    if (length > MAX_KEYFRAME_BYTES) {
      await res.body?.cancel();
      return { ok: false, reason: `keyframe ${key} is ${length} bytes, more than ${MAX_KEYFRAME_BYTES}` };
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength === 0) return { ok: false, reason: `keyframe ${key} is empty` };
    if (bytes.byteLength > MAX_KEYFRAME_BYTES) return { ok: false, reason: `keyframe ${key} is more than ${MAX_KEYFRAME_BYTES} bytes` };
    return { ok: true, value: bytes };
  } catch (err) {
    if (d.aborted()) throw signal.reason ?? err;
    if (d.timedOut()) return { ok: false, reason: `the ${KEYFRAME_STORE} at ${where} did not answer within ${settings.timeout_seconds} s` };
    return { ok: false, reason: `the ${KEYFRAME_STORE} at ${where} is unreachable: ${causeOf(err)}` };
  }
}
