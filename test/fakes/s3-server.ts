import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake S3-compatible object store (the tracking service's MinIO) speaking the real protocol
 * for GetObject: path-style `GET /{bucket}/{key}`, AWS Signature V4 in the Authorization header
 * checked as S3 checks it (its format, the access key, the credential scope's date and region,
 * `x-amz-date` within 15 minutes of real time, and the signature itself, recomputed here from
 * the canonical request without the client's signing library), S3's XML errors
 * (`NoSuchKey`, `NoSuchBucket`, `SignatureDoesNotMatch` ...). `down` answers every request
 * 503 `ServiceUnavailable`, as a store that is overloaded or starting.
 */
export interface FakeS3 {
  url: string;
  /** Every request: method, raw path, and the Authorization header it carried. */
  requests: Array<{ method: string; path: string; authorization: string | undefined; outcome: string }>;
  put(bucket: string, key: string, bytes: Uint8Array): void;
  down: boolean;
  close(): Promise<void>;
}

export interface FakeS3Options {
  accessKey: string;
  secretKey: string;
  region?: string;
}

const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

const sha256 = (s: string): string => crypto.createHash("sha256").update(s, "utf8").digest("hex");
const hmac = (key: crypto.BinaryLike, s: string): Buffer => crypto.createHmac("sha256", key).update(s, "utf8").digest();
const rfc3986 = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function xmlError(res: http.ServerResponse, status: number, code: string, message: string): string {
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`);
  return code;
}

/** Why the request's signature is not valid, or null when it is. */
function verify(
  req: http.IncomingMessage,
  rawPath: string,
  rawQuery: string,
  opts: Required<FakeS3Options>,
): { code: string; status: number; message: string } | null {
  const header = req.headers.authorization;
  const m = header ? AUTH.exec(header) : null;
  if (!m) return { status: 403, code: "AccessDenied", message: "no AWS4-HMAC-SHA256 Authorization header" };
  const [, accessKey, scopeDate, region, signedHeaderList, signature] = m;
  if (accessKey !== opts.accessKey)
    return { status: 403, code: "InvalidAccessKeyId", message: "The Access Key Id you provided does not exist in our records." };
  if (region !== opts.region)
    return { status: 400, code: "AuthorizationHeaderMalformed", message: `the region '${region}' is wrong; expecting '${opts.region}'` };
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== scopeDate)
    return { status: 403, code: "AccessDenied", message: "x-amz-date missing or not the scope's date" };
  const at = Date.UTC(
    +amzDate.slice(0, 4),
    +amzDate.slice(4, 6) - 1,
    +amzDate.slice(6, 8),
    +amzDate.slice(9, 11),
    +amzDate.slice(11, 13),
    +amzDate.slice(13, 15),
  );
  if (Math.abs(Date.now() - at) > 15 * 60_000)
    return { status: 403, code: "RequestTimeTooSkewed", message: "The difference between the request time and the server's time is too large." };
  const payloadHash = req.headers["x-amz-content-sha256"];
  if (typeof payloadHash !== "string" || !payloadHash) return { status: 400, code: "InvalidRequest", message: "x-amz-content-sha256 is required" };
  const signed = signedHeaderList.split(";");
  if (!signed.includes("host") || !signed.includes("x-amz-date")) return { status: 403, code: "AccessDenied", message: "host and x-amz-date must be signed" };
  const canonicalUri = rawPath
    .split("/")
    .map((seg) => rfc3986(decodeURIComponent(seg)))
    .join("/");
  const canonicalQuery = rawQuery
    ? rawQuery
        .split("&")
        .map((p) => p.split("=").map((x) => rfc3986(decodeURIComponent(x ?? ""))))
        .sort((a, b) => (a[0] === b[0] ? (a[1] ?? "").localeCompare(b[1] ?? "") : a[0] < b[0] ? -1 : 1))
        .map(([k, v]) => `${k}=${v ?? ""}`)
        .join("&")
    : "";
  const canonicalHeaders = signed
    .map(
      (h) =>
        `${h}:${String(req.headers[h] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("");
  const canonicalRequest = [req.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaderList, payloadHash].join("\n");
  const scope = `${scopeDate}/${region}/s3/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${opts.secretKey}`, scopeDate), region), "s3"), "aws4_request");
  const expected = crypto.createHmac("sha256", key).update(stringToSign, "utf8").digest("hex");
  if (!crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature)))
    return { status: 403, code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match the signature you provided." };
  return null;
}

export async function startFakeS3(options: FakeS3Options): Promise<FakeS3> {
  const opts = { region: "us-east-1", ...options };
  const buckets = new Map<string, Map<string, Buffer>>();
  const requests: FakeS3["requests"] = [];
  const state = { down: false };
  const server = http.createServer((req, res) => {
    const [rawPath, rawQuery = ""] = (req.url ?? "/").split("?", 2);
    const record = (outcome: string) => requests.push({ method: req.method ?? "", path: rawPath, authorization: req.headers.authorization, outcome });
    if (state.down) return void record(xmlError(res, 503, "ServiceUnavailable", "Please reduce your request rate."));
    const bad = verify(req, rawPath, rawQuery, opts);
    if (bad) return void record(xmlError(res, bad.status, bad.code, bad.message));
    if (req.method !== "GET") return void record(xmlError(res, 405, "MethodNotAllowed", "only GetObject here"));
    const [, bucketName, ...keyParts] = rawPath.split("/").map((s) => decodeURIComponent(s));
    const bucket = buckets.get(bucketName ?? "");
    if (!bucket) return void record(xmlError(res, 404, "NoSuchBucket", "The specified bucket does not exist"));
    const body = bucket.get(keyParts.join("/"));
    if (!body) return void record(xmlError(res, 404, "NoSuchKey", "The specified key does not exist."));
    record("ok");
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": body.length, etag: `"${crypto.createHash("md5").update(body).digest("hex")}"` });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    put(bucketName, key, bytes) {
      let b = buckets.get(bucketName);
      if (!b) buckets.set(bucketName, (b = new Map()));
      b.set(key, Buffer.from(bytes));
    },
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
