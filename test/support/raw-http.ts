/**
 * Raw HTTP/1.1 over a socket: the request target is sent byte for byte, as an attacker
 * would send it, never normalized by a client library.
 */
import net from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
}

export interface RawRequest {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Bind the client to this loopback address (another "client" for per-address limits). */
  localAddress?: string;
  /** Give up (and reject) after this many ms. */
  timeoutMs?: number;
}

function parse(raw: Buffer): RawResponse {
  const text = raw.toString("latin1");
  const split = text.indexOf("\r\n\r\n");
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine, ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(":");
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let bodyBuf = split === -1 ? Buffer.alloc(0) : raw.subarray(Buffer.byteLength(text.slice(0, split + 4), "latin1"));
  if (headers["transfer-encoding"] === "chunked") bodyBuf = dechunk(bodyBuf);
  const body = bodyBuf.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body, json };
}

function dechunk(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    const eol = buf.indexOf("\r\n", i);
    if (eol === -1) break;
    const size = parseInt(buf.subarray(i, eol).toString("latin1"), 16);
    if (!size) break;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export function rawRequest(port: number, req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: req.localAddress });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${req.method} ${req.target} within ${req.timeoutMs ?? 10000} ms`));
    }, req.timeoutMs ?? 10000);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", (err) => {
      // The server may close after answering before it read everything we sent.
      if (chunks.length > 0) return;
      clearTimeout(timer);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (chunks.length === 0) return reject(new Error(`connection closed without an answer to ${req.method} ${req.target}`));
      resolve(parse(Buffer.concat(chunks)));
    });
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, "utf8");
    const headers: Record<string, string> = { host: "127.0.0.1", connection: "close", ...(req.headers ?? {}) };
    if (body && !Object.keys(headers).some((h) => h.toLowerCase() === "content-length")) headers["content-length"] = String(body.length);
    const head = `${req.method} ${req.target} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\r\n")}\r\n\r\n`;
    socket.write(head, "latin1");
    if (body) socket.write(body);
  });
}
