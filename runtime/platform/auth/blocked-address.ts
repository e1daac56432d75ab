/**
 * An address blocked for wrong keys or passwords is refused before anything else is looked
 * at: before a key (a right one would be an oracle), before a body is read (it costs memory)
 * and on every way in (REST, `/mcp`, the editor, every WebSocket upgrade). The refusal is 429
 * with `Retry-After`; the throttle logs it at most once per address and minute.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { TooManyRequestsError } from "../core/errors";
import type { FailureThrottle } from "./failure-throttle";

/** The address a throttle counts against: the socket's peer, never a header the client sets. */
export const peerAddress = (req: IncomingMessage): string => req.socket.remoteAddress ?? "unknown";

const message = (wait: number): string => `Too many wrong keys or passwords from this address: try again in ${wait} s`;

/** Express middleware: 429 for a blocked address, before any key or body. */
export function refuseBlockedAddress(throttle: FailureThrottle): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const wait = throttle.refusal(peerAddress(req));
    next(wait > 0 ? new TooManyRequestsError(message(wait), wait) : undefined);
  };
}

/** For an upgrade: answers 429 on the raw socket and returns true when the address is blocked. */
export function refusedUpgrade(throttle: FailureThrottle, req: IncomingMessage, socket: Duplex): boolean {
  const wait = throttle.refusal(peerAddress(req));
  if (wait <= 0) return false;
  const body = JSON.stringify({ detail: message(wait) });
  socket.end(
    `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: ${wait}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  return true;
}
