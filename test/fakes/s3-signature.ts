/**
 * AWS Signature V4 as an S3 server checks it, recomputed here from the canonical request
 * without the client's signing library: either an `Authorization: AWS4-HMAC-SHA256 …` header
 * (with `x-amz-date` and `x-amz-content-sha256`, every `x-amz-*` header signed) or a presigned
 * URL's query (`X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Expires`,
 * `X-Amz-SignedHeaders`, `X-Amz-Signature`; the payload `UNSIGNED-PAYLOAD`). The access key, the
 * scope's date and region, the date within 15 minutes of the server's clock (a presigned URL:
 * not past its expiry, at most a week) and the signature are each checked, with S3's codes.
 */
import crypto from "node:crypto";
import type http from "node:http";

export interface SignatureKeys {
  accessKey: string;
  secretKey: string;
  region: string;
  /** The server's clock, epoch ms. */
  now: () => number;
}

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const CREDENTIAL = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/;
const AMZ_DATE = /^\d{8}T\d{6}Z$/;
const WEEK_S = 604_800;

export const sha256Hex = (s: crypto.BinaryLike): string => crypto.createHash("sha256").update(s).digest("hex");
const hmac = (key: crypto.BinaryLike, s: string): Buffer => crypto.createHmac("sha256", key).update(s, "utf8").digest();
const rfc3986 = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const parseAmzDate = (d: string): number => Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8), +d.slice(9, 11), +d.slice(11, 13), +d.slice(13, 15));

/** The query's pairs, decoded (`+` is a space in a query). */
export function queryPairs(rawQuery: string): Array<[string, string]> {
  if (!rawQuery) return [];
  return rawQuery.split("&").map((p) => {
    const eq = p.indexOf("=");
    const [k, v] = eq < 0 ? [p, ""] : [p.slice(0, eq), p.slice(eq + 1)];
    const dec = (x: string) => decodeURIComponent(x.replace(/\+/g, " "));
    return [dec(k), dec(v)];
  });
}

const canonicalQuery = (pairs: Array<[string, string]>): string =>
  pairs
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");

function expectedSignature(
  keys: SignatureKeys,
  req: http.IncomingMessage,
  parts: { rawPath: string; query: Array<[string, string]>; signedHeaders: string; amzDate: string; scopeDate: string; payloadHash: string },
): string {
  const canonicalUri = parts.rawPath
    .split("/")
    .map((seg) => rfc3986(decodeURIComponent(seg)))
    .join("/");
  const canonicalHeaders = parts.signedHeaders
    .split(";")
    .map(
      (h) =>
        `${h}:${String(req.headers[h] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("");
  const canonicalRequest = [req.method, canonicalUri, canonicalQuery(parts.query), canonicalHeaders, parts.signedHeaders, parts.payloadHash].join("\n");
  const scope = `${parts.scopeDate}/${keys.region}/s3/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", parts.amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${keys.secretKey}`, parts.scopeDate), keys.region), "s3"), "aws4_request");
  return crypto.createHmac("sha256", key).update(stringToSign, "utf8").digest("hex");
}

const mismatch: Refusal = {
  status: 403,
  code: "SignatureDoesNotMatch",
  message: "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
};

const sameHex = (a: string, b: string): boolean => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Why the request is not validly signed, or null when it is. */
export function verifySignature(keys: SignatureKeys, req: http.IncomingMessage, rawPath: string, rawQuery: string): Refusal | null {
  const query = queryPairs(rawQuery);
  const q = new Map(query);
  if (q.has("X-Amz-Signature") || q.has("X-Amz-Algorithm")) {
    if (req.headers.authorization) return { status: 400, code: "InvalidArgument", message: "Only one auth mechanism allowed" };
    return verifyPresigned(keys, req, rawPath, query);
  }
  const header = req.headers.authorization;
  const m = header ? AUTH.exec(header) : null;
  if (!m) return { status: 403, code: "AccessDenied", message: "Access Denied. (no AWS4-HMAC-SHA256 Authorization header)" };
  const [, accessKey, scopeDate, region, signedHeaders, signature] = m;
  if (accessKey !== keys.accessKey)
    return { status: 403, code: "InvalidAccessKeyId", message: "The Access Key Id you provided does not exist in our records." };
  if (region !== keys.region)
    return { status: 400, code: "AuthorizationHeaderMalformed", message: `the region '${region}' is wrong; expecting '${keys.region}'` };
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  if (!AMZ_DATE.test(amzDate) || amzDate.slice(0, 8) !== scopeDate)
    return { status: 403, code: "AccessDenied", message: "x-amz-date missing or not the scope's date" };
  if (Math.abs(keys.now() - parseAmzDate(amzDate)) > 15 * 60_000)
    return { status: 403, code: "RequestTimeTooSkewed", message: "The difference between the request time and the server's time is too large." };
  const payloadHash = req.headers["x-amz-content-sha256"];
  if (typeof payloadHash !== "string" || !payloadHash)
    return { status: 400, code: "InvalidRequest", message: "Missing required header for this request: x-amz-content-sha256" };
  const signed = signedHeaders.split(";");
  if (!signed.includes("host")) return { status: 403, code: "AccessDenied", message: "host must be signed" };
  const unsigned = Object.keys(req.headers).filter((h) => h.startsWith("x-amz-") && !signed.includes(h));
  if (unsigned.length)
    return { status: 403, code: "AccessDenied", message: `There were headers present in the request which were not signed: ${unsigned.join(", ")}` };
  const expected = expectedSignature(keys, req, { rawPath, query, signedHeaders, amzDate, scopeDate, payloadHash });
  return sameHex(expected, signature) ? null : mismatch;
}

function verifyPresigned(keys: SignatureKeys, req: http.IncomingMessage, rawPath: string, query: Array<[string, string]>): Refusal | null {
  const q = new Map(query);
  const bad = (message: string): Refusal => ({ status: 400, code: "AuthorizationQueryParametersError", message });
  if (q.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") return bad('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const cred = CREDENTIAL.exec(q.get("X-Amz-Credential") ?? "");
  if (!cred) return bad("Error parsing the X-Amz-Credential parameter");
  const [, accessKey, scopeDate, region] = cred;
  if (accessKey !== keys.accessKey)
    return { status: 403, code: "InvalidAccessKeyId", message: "The Access Key Id you provided does not exist in our records." };
  if (region !== keys.region) return bad(`the region '${region}' is wrong; expecting '${keys.region}'`);
  const amzDate = q.get("X-Amz-Date") ?? "";
  if (!AMZ_DATE.test(amzDate) || amzDate.slice(0, 8) !== scopeDate) return bad("X-Amz-Date must be in the ISO8601 Long Format and the scope's date");
  const expiresText = q.get("X-Amz-Expires") ?? "";
  if (!/^\d+$/.test(expiresText)) return bad("X-Amz-Expires should be a number");
  const expires = Number(expiresText);
  if (expires > WEEK_S) return bad("X-Amz-Expires must be less than a week (in seconds) that is 604800");
  const signedAt = parseAmzDate(amzDate);
  if (signedAt - keys.now() > 15 * 60_000) return { status: 403, code: "AccessDenied", message: "Request is not valid yet" };
  if (keys.now() > signedAt + expires * 1000) return { status: 403, code: "AccessDenied", message: "Request has expired" };
  const signedHeaders = q.get("X-Amz-SignedHeaders") ?? "";
  if (!signedHeaders.split(";").includes("host")) return bad("host must be signed");
  const signature = q.get("X-Amz-Signature") ?? "";
  const unsignedQuery = query.filter(([k]) => k !== "X-Amz-Signature");
  const expected = expectedSignature(keys, req, { rawPath, query: unsignedQuery, signedHeaders, amzDate, scopeDate, payloadHash: "UNSIGNED-PAYLOAD" });
  return sameHex(expected, signature) ? null : mismatch;
}
