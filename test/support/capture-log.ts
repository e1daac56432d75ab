/** A logger whose JSON lines are kept in memory, to assert on what the service logged. */
import { Writable } from "node:stream";
import pino from "pino";
import type { Logger } from "../../runtime/platform/core/logger";

export interface CapturedLog {
  log: Logger;
  lines: Array<Record<string, unknown>>;
}

export function captureLog(level: pino.Level = "info"): CapturedLog {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  return { log: pino({ level }, sink), lines };
}
