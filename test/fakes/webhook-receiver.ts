/**
 * A webhook receiver for the `webhook` channel's tests: records every POST (path, headers,
 * parsed JSON body) and answers 200, or, when told, a chosen status or nothing for a while
 * (to drive the sender's timeout). Checks `Authorization: Bearer <token>` when given one.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  raw: string;
}

export interface WebhookReceiverOptions {
  /** Required bearer token; a request without it gets 401 (and is still recorded). */
  bearer?: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Answer every following request with this status (undefined: 200). */
  answerWith(status: number | undefined): void;
  /** Hold every following answer this long (0: answer at once). */
  delayBy(ms: number): void;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let status: number | undefined;
  let delayMs = 0;
  const pending = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // recorded as text
      }
      received.push({ path: req.url ?? "/", headers: req.headers, body, raw });
      const authorised = !options.bearer || req.headers.authorization === `Bearer ${options.bearer}`;
      const code = !authorised ? 401 : (status ?? 200);
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(code, { "content-type": "application/json" });
        res.end(JSON.stringify(code < 300 ? { ok: true } : { detail: authorised ? "receiver told to fail" : "bad bearer token" }));
      };
      if (delayMs <= 0) return answer();
      const timer = setTimeout(() => {
        pending.delete(timer);
        answer();
      }, delayMs);
      pending.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answerWith: (s) => void (status = s),
    delayBy: (ms) => void (delayMs = ms),
    async waitFor(n, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`webhook receiver: ${received.length} of ${n} requests arrived`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return received;
    },
    close: async () => {
      pending.forEach((t) => clearTimeout(t));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
