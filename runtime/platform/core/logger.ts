/** Structured JSON logs (pino): fast, one line per event, levels the operator can filter. */
import pino from "pino";

export type Logger = pino.Logger;
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace";

export const createLogger = (level: LogLevel | "silent", name = "careflow"): Logger =>
  pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
