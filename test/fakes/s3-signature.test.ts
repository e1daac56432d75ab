/**
 * The fake S3's signature check against AWS's own published examples (S3 API reference,
 * "Signature Calculations for the Authorization Header" and "Authenticating Requests: Using
 * Query Parameters"), so the fake is right by itself and not only in agreement with `aws4`.
 */
import assert from "node:assert/strict";
import type http from "node:http";
import { verifySignature, type SignatureKeys } from "./s3-signature";

const keys = (nowIso: string): SignatureKeys => ({
  accessKey: "AKIAIOSFODNN7EXAMPLE",
  secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  region: "us-east-1",
  now: () => Date.parse(nowIso),
});

const request = (method: string, headers: Record<string, string>): http.IncomingMessage => ({ method, headers }) as unknown as http.IncomingMessage;

const EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

describe("fake S3: Signature V4 checked as AWS documents it", () => {
  const getObject = (signature: string) =>
    request("GET", {
      host: "examplebucket.s3.amazonaws.com",
      range: "bytes=0-9",
      "x-amz-content-sha256": EMPTY_SHA,
      "x-amz-date": "20130524T000000Z",
      authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=${signature}`,
    });

  it("accepts AWS's GetObject example signed in the Authorization header, and refuses it altered or late", () => {
    const good = "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
    assert.equal(verifySignature(keys("2013-05-24T00:05:00Z"), getObject(good), "/test.txt", ""), null);
    assert.equal(verifySignature(keys("2013-05-24T00:05:00Z"), getObject(good), "/test2.txt", "")?.code, "SignatureDoesNotMatch");
    assert.equal(verifySignature(keys("2013-05-24T00:05:00Z"), getObject(good.replace(/^f/, "e")), "/test.txt", "")?.code, "SignatureDoesNotMatch");
    assert.equal(verifySignature(keys("2013-05-24T00:20:00Z"), getObject(good), "/test.txt", "")?.code, "RequestTimeTooSkewed");
    const unsignedMeta = getObject(good);
    unsignedMeta.headers["x-amz-meta-note"] = "added later";
    assert.equal(verifySignature(keys("2013-05-24T00:05:00Z"), unsignedMeta, "/test.txt", "")?.code, "AccessDenied");
  });

  it("accepts AWS's presigned GET example until it expires, and refuses it altered", () => {
    const query = (signature: string, expires = "86400") =>
      [
        "X-Amz-Algorithm=AWS4-HMAC-SHA256",
        "X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request",
        "X-Amz-Date=20130524T000000Z",
        `X-Amz-Expires=${expires}`,
        "X-Amz-SignedHeaders=host",
        `X-Amz-Signature=${signature}`,
      ].join("&");
    const good = "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";
    const req = request("GET", { host: "examplebucket.s3.amazonaws.com" });
    assert.equal(verifySignature(keys("2013-05-24T12:00:00Z"), req, "/test.txt", query(good)), null);
    assert.equal(verifySignature(keys("2013-05-25T00:00:01Z"), req, "/test.txt", query(good))?.message, "Request has expired");
    assert.equal(verifySignature(keys("2013-05-24T12:00:00Z"), req, "/test.txt", query(good, "86401"))?.code, "SignatureDoesNotMatch");
    assert.equal(verifySignature(keys("2013-05-24T12:00:00Z"), req, "/test.txt", query(good, "604801"))?.code, "AuthorizationQueryParametersError");
  });
});
