import { createHash, timingSafeEqual } from "node:crypto";
import { isIPv4 } from "node:net";
import type { AddressInfo } from "node:net";
import type { RequestHandler } from "express";
import { KeyRequiredError, UnauthorizedError } from "../errors";

/**
 * Optional shared key. OpenAI clients send `Authorization: Bearer <key>`; the main service's
 * convention is `X-API-Key`. Both are accepted and compared in constant time.
 *
 * Without a key the service is open only while it listens on a loopback address. Once
 * `listening()` reports an address reachable from the network, every request but GET and HEAD
 * (speech, voice upload, voice delete) is refused with 403 until `TTS_API_KEY` is set; reading
 * the models and voice lists stays open.
 */
export function requireApiKey(apiKey: string | undefined, listening: () => AddressInfo | string | null): RequestHandler {
  if (!apiKey) {
    return (req, _res, next) => {
      const write = req.method !== "GET" && req.method !== "HEAD";
      next(write && reachableFromNetwork(listening()) ? new KeyRequiredError() : undefined);
    };
  }
  return (req, _res, next) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get("authorization") ?? "")?.[1];
    const given = bearer ?? req.get("x-api-key") ?? "";
    next(keyMatches(given, apiKey) ? undefined : new UnauthorizedError());
  };
}

/**
 * Constant time whatever the two lengths: both keys are hashed to 32-byte SHA-256 digests and
 * the digests compared, so neither the answer nor the time taken tells a caller the key's length.
 */
export function keyMatches(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** `127.0.0.0/8` and `::1` (also IPv4-mapped, `::ffff:127.0.0.1`) and `localhost`. */
export function isLoopbackAddress(address: string): boolean {
  const host = address
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/^::ffff:/, "");
  return host === "localhost" || host === "::1" || (isIPv4(host) && host.startsWith("127."));
}

/**
 * True when the server listens on an address other machines can reach: any interface
 * (`0.0.0.0`, `::`) or a non-loopback one. A Unix socket or pipe is local; a server not
 * listening counts as reachable, so a caller that cannot tell is refused rather than let in.
 */
export function reachableFromNetwork(address: AddressInfo | string | null): boolean {
  if (typeof address === "string") return false;
  return address === null || !isLoopbackAddress(address.address);
}
