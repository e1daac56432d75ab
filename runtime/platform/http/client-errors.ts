/**
 * Requests Node's HTTP parser refuses before Express sees them (headers over 16 KB, a
 * malformed request line or header) are answered with the same `{"detail"}` body as every
 * other error, instead of a bare status line.
 */
import type http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "../core/logger";

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 413: "Payload Too Large", 431: "Request Header Fields Too Large" };

function statusOf(code: string | undefined): { status: number; detail: string } {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, detail: "request headers: larger than 16 KB" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, detail: "request: not received in time" };
    default:
      return { status: 400, detail: "request: not valid HTTP" };
  }
}

export function answerClientErrors(server: http.Server, log: Logger): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    const { status, detail } = statusOf(err.code);
    log.debug({ code: err.code }, "refused a malformed request");
    const body = JSON.stringify({ detail });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
