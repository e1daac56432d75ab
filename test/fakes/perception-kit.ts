import http from "node:http";
import type { AddressInfo } from "node:net";
import type express from "express";

/**
 * What the perception fakes (scene analysis, semantic memory) share: scripted replies, the
 * record of requests, and the HTTP server on port 0. A reply is a body (as the real service
 * would send), an error status with FastAPI's `{"detail": …}`, a raw body, or no answer.
 */
export type FakeReply =
  | { body: unknown; delayMs?: number }
  | { status: number; detail: string; delayMs?: number }
  | { raw: string; status?: number; contentType?: string }
  | { hang: true };

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | undefined>;
  body: any;
}

export interface FakeServerBase {
  url: string;
  requests: FakeRequest[];
  /** Replies for the next requests (of any route), in order; then the routes' own answers. */
  script(...replies: FakeReply[]): void;
  /** Every request gets this reply until cleared with null (e.g. a service that is down: status 503). */
  always: FakeReply | null;
  reset(): void;
  close(): Promise<void>;
}

export class ReplyQueue {
  readonly queue: FakeReply[] = [];
  always: FakeReply | null = null;
  next(): FakeReply | undefined {
    return this.always ?? this.queue.shift();
  }
}

export async function sendReply(res: express.Response, reply: FakeReply): Promise<void> {
  if ("hang" in reply) return;
  if ("delayMs" in reply && reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
  if ("raw" in reply) {
    res
      .status(reply.status ?? 200)
      .type(reply.contentType ?? "application/json")
      .send(reply.raw);
    return;
  }
  if ("status" in reply) return void res.status(reply.status).json({ detail: reply.detail });
  res.json(reply.body);
}

export async function listen(app: express.Express, listenPort = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
