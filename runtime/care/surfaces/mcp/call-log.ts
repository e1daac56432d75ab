/**
 * Every MCP tool call is recorded (who, tool, arguments, duration, outcome), over `/mcp` and
 * the REST mirror alike. Calls are queued and written together every 200 ms (or at 200
 * queued), so recording never slows a call; a read flushes the queue first, so a call is
 * visible as soon as it returned. Rows older than `retention.mcp_calls_days` are removed by the
 * retention job (app/retention-plan.ts, docs/retention.md).
 */
import type { PlatformContext } from "../../../platform/context";
import { isoNow } from "../../../platform/core/clock";
import { insertCalls, selectCalls, type CallQuery, type CallRow, type StoredCall } from "./call-log.store";

const FLUSH_MS = 200;
const FLUSH_AT = 200;
/** Arguments are kept up to this many characters of their JSON (a rule bundle can be large). */
export const MAX_ARGUMENTS_CHARS = 4000;

export type CallInput = Omit<CallRow, "timestamp" | "arguments_json"> & { arguments: unknown };

export class CallLog {
  private queue: CallRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: Pick<PlatformContext, "db" | "clock" | "log" | "cluster">) {}

  start(): () => Promise<void> {
    return () => this.stop();
  }

  record(call: CallInput): void {
    const { arguments: args, ...rest } = call;
    let json = safeJson(args);
    if (json.length > MAX_ARGUMENTS_CHARS) json = JSON.stringify(`${json.slice(0, MAX_ARGUMENTS_CHARS)}… (cut)`);
    this.queue.push({ ...rest, timestamp: isoNow(this.ctx.clock), arguments_json: json, error: rest.error ? rest.error.slice(0, 2000) : null });
    if (this.queue.length >= FLUSH_AT) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is queued; resolves when everything recorded so far is in the store. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.queue;
    this.queue = [];
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await insertCalls(this.ctx.db, batch);
      } catch (err) {
        this.ctx.log.error({ err, calls: batch.length }, "recording MCP tool calls failed");
      }
    });
    return this.writing;
  }

  async list(q: CallQuery): Promise<StoredCall[]> {
    await this.flush();
    return selectCalls(this.ctx.db, q);
  }

  async stop(): Promise<void> {
    await this.flush();
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v ?? {}) ?? "{}";
  } catch {
    return '"(unserialisable)"';
  }
}
