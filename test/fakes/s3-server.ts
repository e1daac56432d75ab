import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { queryPairs, sha256Hex, verifySignature, type SignatureKeys } from "./s3-signature";

/**
 * A fake S3-compatible object store (MinIO for the tracking keyframes and the media store)
 * speaking the real protocol, path-style (`/{bucket}/{key}`): PutObject (the payload's SHA-256
 * checked against `x-amz-content-sha256`, `Content-Type` and `x-amz-meta-*` kept), GetObject,
 * HeadObject, DeleteObject, ListObjectsV2 (`prefix`, `max-keys`, continuation tokens) and a
 * bucket's HEAD. Every request's AWS Signature V4 is checked as S3 checks it, in a header or a
 * presigned URL's query (s3-signature.ts), against the fake's own clock (`now`, which a test
 * may move to expire a presigned URL). Errors are S3's XML (`NoSuchKey`, `NoSuchBucket`,
 * `SignatureDoesNotMatch`, `AccessDenied` "Request has expired" ...). `down` answers every
 * request 503 `ServiceUnavailable`, as a store that is overloaded or starting.
 */
export interface FakeS3 {
  url: string;
  /** Every request: method, raw path, the Authorization header it carried, and how it ended. */
  requests: Array<{ method: string; path: string; authorization: string | undefined; outcome: string }>;
  /** Stores an object as if PUT (the bucket made if need be). */
  put(bucket: string, key: string, bytes: Uint8Array, contentType?: string): void;
  createBucket(bucket: string): void;
  /** The keys of a bucket, sorted. */
  keys(bucket: string): string[];
  object(bucket: string, key: string): StoredObject | undefined;
  down: boolean;
  close(): Promise<void>;
}

export interface FakeS3Options {
  accessKey: string;
  secretKey: string;
  region?: string;
  /** The server's clock (default the wall clock). */
  now?: () => number;
  port?: number;
  host?: string;
  /** ListObjectsV2's page when the request names none (S3: 1000). */
  pageSize?: number;
  /** Told each request as a line: method, path, outcome. */
  log?: (line: string) => void;
}

export interface StoredObject {
  body: Buffer;
  contentType: string;
  meta: Record<string, string>;
  lastModified: number;
}

const MAX_BODY = 64 * 1024 * 1024;

const xmlEscape = (s: string): string => s.replace(/[<>&'"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c] ?? c);
const etag = (body: Buffer): string => `"${crypto.createHash("md5").update(body).digest("hex")}"`;

function xmlError(req: http.IncomingMessage, res: http.ServerResponse, status: number, code: string, message: string): string {
  // A HEAD answer has no body: S3 gives the status alone.
  if (req.method === "HEAD") {
    res.writeHead(status);
    res.end();
    return code;
  }
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><Resource>${xmlEscape(req.url ?? "")}</Resource><RequestId>fake</RequestId></Error>`,
  );
  return code;
}

async function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function startFakeS3(options: FakeS3Options): Promise<FakeS3> {
  const keys: SignatureKeys = { region: "us-east-1", now: () => Date.now(), ...options };
  const pageSize = options.pageSize ?? 1000;
  const buckets = new Map<string, Map<string, StoredObject>>();
  const requests: FakeS3["requests"] = [];
  const state = { down: false };

  const listV2 = (name: string, bucket: Map<string, StoredObject>, query: Map<string, string>): string => {
    const prefix = query.get("prefix") ?? "";
    const max = Math.min(Number(query.get("max-keys") ?? pageSize) || pageSize, pageSize);
    const after = query.get("continuation-token")
      ? Buffer.from(query.get("continuation-token")!, "base64url").toString("utf8")
      : (query.get("start-after") ?? "");
    const all = [...bucket.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = all.slice(0, max);
    const truncated = all.length > page.length;
    const contents = page
      .map((k) => {
        const o = bucket.get(k)!;
        return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${new Date(o.lastModified).toISOString()}</LastModified><ETag>${xmlEscape(etag(o.body))}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join("");
    const next = truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!, "utf8").toString("base64url")}</NextContinuationToken>` : "";
    return `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${xmlEscape(name)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, record: (outcome: string) => void): Promise<void> => {
    const [rawPath, rawQuery = ""] = (req.url ?? "/").split("?", 2);
    const fail = (status: number, code: string, message: string) => record(xmlError(req, res, status, code, message));
    if (state.down) return fail(503, "ServiceUnavailable", "Please reduce your request rate.");
    const bad = verifySignature(keys, req, rawPath, rawQuery);
    if (bad) return fail(bad.status, bad.code, bad.message);
    const [, bucketName = "", ...keyParts] = rawPath.split("/").map((s) => decodeURIComponent(s));
    const key = keyParts.join("/");
    const bucket = buckets.get(bucketName);
    if (!bucket) return fail(404, "NoSuchBucket", "The specified bucket does not exist");
    const query = new Map(queryPairs(rawQuery));

    if (!key) {
      if (req.method === "HEAD") {
        record("ok");
        return void res.writeHead(200).end();
      }
      if (req.method === "GET" && query.get("list-type") === "2") {
        record("ok");
        res.writeHead(200, { "content-type": "application/xml" });
        return void res.end(listV2(bucketName, bucket, query));
      }
      return fail(405, "MethodNotAllowed", "The specified method is not allowed against this resource.");
    }

    switch (req.method) {
      case "PUT": {
        const body = await readBody(req);
        if (!body) return fail(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed object size.");
        const claimed = String(req.headers["x-amz-content-sha256"] ?? "");
        if (claimed !== "UNSIGNED-PAYLOAD" && claimed !== sha256Hex(body))
          return fail(400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.");
        const meta = Object.fromEntries(Object.entries(req.headers).flatMap(([h, v]) => (h.startsWith("x-amz-meta-") ? [[h, String(v)]] : [])));
        bucket.set(key, { body, contentType: String(req.headers["content-type"] ?? "binary/octet-stream"), meta, lastModified: keys.now() });
        record("ok");
        res.writeHead(200, { etag: etag(body) });
        return void res.end();
      }
      case "GET":
      case "HEAD": {
        const o = bucket.get(key);
        if (!o) return fail(404, "NoSuchKey", "The specified key does not exist.");
        record("ok");
        res.writeHead(200, {
          "content-type": o.contentType,
          "content-length": o.body.length,
          etag: etag(o.body),
          "last-modified": new Date(o.lastModified).toUTCString(),
          ...o.meta,
        });
        return void res.end(req.method === "GET" ? o.body : undefined);
      }
      case "DELETE":
        bucket.delete(key);
        record("ok");
        return void res.writeHead(204).end();
      default:
        return fail(405, "MethodNotAllowed", "The specified method is not allowed against this resource.");
    }
  };

  const server = http.createServer((req, res) => {
    const rawPath = (req.url ?? "/").split("?", 1)[0];
    const record = (outcome: string) => {
      requests.push({ method: req.method ?? "", path: rawPath, authorization: req.headers.authorization, outcome });
      options.log?.(`${req.method ?? ""} ${rawPath} ${outcome}`);
    };
    handle(req, res, record).catch((err: unknown) => {
      record(`error: ${String(err)}`);
      if (!res.headersSent) xmlError(req, res, 500, "InternalError", "We encountered an internal error. Please try again.");
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const bucketOf = (name: string): Map<string, StoredObject> => {
    let b = buckets.get(name);
    if (!b) buckets.set(name, (b = new Map()));
    return b;
  };
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    requests,
    put(bucketName, key, bytes, contentType = "image/jpeg") {
      bucketOf(bucketName).set(key, { body: Buffer.from(bytes), contentType, meta: {}, lastModified: keys.now() });
    },
    createBucket: (name) => void bucketOf(name),
    keys: (name) => [...(buckets.get(name)?.keys() ?? [])].sort(),
    object: (name, key) => buckets.get(name)?.get(key),
    get down() {
      return state.down;
    },
    set down(v) {
      state.down = v;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
