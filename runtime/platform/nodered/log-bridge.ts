/** Folds Node-RED's log messages into the service log, at matching levels. */
import type { Logger } from "../core/logger";

// Node-RED's numeric levels: fatal 10, error 20, warn 30, info 40, debug 50, trace 60.
const LEVELS: Record<number, "fatal" | "error" | "warn" | "info" | "debug" | "trace"> = {
  10: "fatal",
  20: "error",
  30: "warn",
  40: "info",
  50: "debug",
  60: "trace",
};

interface RedLogMessage {
  level: number;
  msg?: unknown;
  type?: string;
  id?: string;
  name?: string;
}

export function redLogging(log: () => Logger, level: string): Record<string, unknown> {
  return {
    careflow: {
      level,
      metrics: false,
      audit: false,
      handler: () => (m: RedLogMessage) => {
        const lvl = LEVELS[m.level] ?? "info";
        const text = m.msg instanceof Error ? m.msg.message : typeof m.msg === "string" ? m.msg : JSON.stringify(m.msg);
        log()[lvl]({ node_type: m.type, node_id: m.id, node_name: m.name }, text.trim());
      },
    },
  };
}
