/**
 * A small client of an S3-compatible object store (MinIO) for the media store: path-style
 * requests (`{endpoint}/{bucket}/{key}`, as MinIO serves them) signed with AWS Signature V4 by
 * `aws4`, the signer the tracking keyframes already use (care/services/perception/keyframe-store.client.ts),
 * and presigned GET URLs that expire. Requests go through node's fetch.
 *
 * Signed with the wall clock, never the app's: the store checks a request's date (and a
 * presigned URL's expiry) against its own clock, 15 minutes of skew at most.
 */
import { createHash } from "node:crypto";
import aws4 from "aws4";
import { systemClock } from "../../platform/core/clock";
import { ServiceUnavailableError } from "../../platform/core/errors";

/** Where the store is and how to sign for it, from `media.store_url` (settings.ts checks its form). */
export interface S3Location {
  /** `http(s)://host[:port]`. */
  endpoint: string;
  bucket: string;
  /** The URL's path after the bucket, "" or ending in "/": every key starts with it. */
  prefix: string;
  accessKey: string;
  secretKey: string;
  region: string;
  timeoutMs: number;
  /** The store for messages and logs: the URL without its credentials. */
  where: string;
}

export function s3Location(storeUrl: string, region: string, timeoutSeconds: number): S3Location {
  const u = new URL(storeUrl);
  const [bucket = "", ...rest] = u.pathname.split("/").slice(1);
  const prefixParts = rest.filter(Boolean).map((s) => decodeURIComponent(s));
  const prefix = prefixParts.length ? `${prefixParts.join("/")}/` : "";
  return {
    endpoint: `${u.protocol}//${u.host}`,
    bucket,
    prefix,
    accessKey: decodeURIComponent(u.username),
    secretKey: decodeURIComponent(u.password),
    region,
    timeoutMs: timeoutSeconds * 1000,
    where: `${u.protocol}//${u.host}/${bucket}${prefix ? `/${prefix.slice(0, -1)}` : ""}`,
  };
}

export interface S3Response {
  status: number;
  headers: Headers;
  body: Buffer;
}

export interface S3Request {
  method: "GET" | "PUT" | "HEAD" | "DELETE";
  /** The object's key in the bucket; absent: the bucket itself (a listing, a probe). */
  key?: string;
  query?: Readonly<Record<string, string>>;
  body?: Buffer;
  headers?: Readonly<Record<string, string>>;
}

/** S3 encodes each path segment by RFC 3986 (only `A-Za-z0-9-._~` stay), slashes kept. */
const rfc3986 = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const pathOf = (loc: S3Location, key?: string): string =>
  key === undefined ? `/${rfc3986(loc.bucket)}` : `/${rfc3986(loc.bucket)}/${key.split("/").map(rfc3986).join("/")}`;

const queryOf = (query: Readonly<Record<string, string>> = {}): string =>
  Object.keys(query)
    .sort()
    .map((k) => `${rfc3986(k)}=${rfc3986(query[k])}`)
    .join("&");

/** `20260105T090000Z`, the form SigV4 dates take. */
const amzDate = (ms: number): string => new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, "");

/** The `<Code>` (and `<Message>`) of an S3 error body, when it has one. */
export function s3ErrorText(body: Buffer): string {
  const text = body.toString("utf8", 0, 4096);
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]{1,200})<\/Message>/.exec(text)?.[1];
  return code ? `: ${code}${message ? ` (${message})` : ""}` : "";
}

const causeOf = (err: unknown): string => {
  const e = err as { cause?: { code?: string; message?: string }; message?: string; name?: string };
  if (e.name === "TimeoutError") return "no answer in time";
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
};

/** Told after each request whether the store answered (a 5xx or no answer: it did not). */
export type S3Outcome = (up: boolean, detail?: string) => void;

export class S3Client {
  constructor(
    readonly loc: S3Location,
    private readonly wallClock: () => number = systemClock.now,
    private readonly outcome?: S3Outcome,
  ) {}

  /** One signed request; throws ServiceUnavailableError when the store cannot be reached in time. */
  async request(r: S3Request): Promise<S3Response> {
    const path = pathOf(this.loc, r.key);
    const query = queryOf(r.query);
    const url = `${this.loc.endpoint}${path}${query ? `?${query}` : ""}`;
    const host = new URL(url).host;
    const signed = aws4.sign(
      {
        host,
        path: `${path}${query ? `?${query}` : ""}`,
        method: r.method,
        service: "s3",
        region: this.loc.region,
        headers: {
          ...r.headers,
          "X-Amz-Date": amzDate(this.wallClock()),
          "X-Amz-Content-Sha256": createHash("sha256")
            .update(r.body ?? Buffer.alloc(0))
            .digest("hex"),
        },
      },
      { accessKeyId: this.loc.accessKey, secretAccessKey: this.loc.secretKey },
    );
    const headers: Record<string, string> = {};
    // fetch sends the same Host itself (and refuses one given).
    for (const [k, v] of Object.entries(signed.headers ?? {})) if (k.toLowerCase() !== "host" && v !== undefined) headers[k] = String(v);
    try {
      const res = await fetch(url, { method: r.method, headers, body: r.body, signal: AbortSignal.timeout(this.loc.timeoutMs) });
      const body = Buffer.from(await res.arrayBuffer());
      this.outcome?.(res.status < 500, res.status < 500 ? undefined : `HTTP ${res.status}${s3ErrorText(body)}`);
      return { status: res.status, headers: res.headers, body };
    } catch (err) {
      this.outcome?.(false, causeOf(err));
      throw new ServiceUnavailableError(`the media store at ${this.loc.where} is unreachable: ${causeOf(err)}`);
    }
  }

  /** The error for an answer the caller cannot use: the store's status and S3 error code. */
  refused(what: string, res: S3Response): ServiceUnavailableError {
    return new ServiceUnavailableError(`the media store at ${this.loc.where} answered ${what} with HTTP ${res.status}${s3ErrorText(res.body)}`);
  }

  /** A GET of `key` anyone holding the URL may make for `ttlSeconds` (at most a week, S3's limit). */
  presignGet(key: string, ttlSeconds: number): string {
    const path = pathOf(this.loc, key);
    const signed = aws4.sign(
      {
        host: new URL(this.loc.endpoint).host,
        path: `${path}?${queryOf({ "X-Amz-Expires": String(ttlSeconds), "X-Amz-Date": amzDate(this.wallClock()) })}`,
        method: "GET",
        service: "s3",
        region: this.loc.region,
        signQuery: true,
      },
      { accessKeyId: this.loc.accessKey, secretAccessKey: this.loc.secretKey },
    );
    return `${this.loc.endpoint}${signed.path ?? path}`;
  }
}
