/**
 * The chat service's Bot API (Telegram's protocol) through grammy's `Api`: every call goes to
 * `<api_base_url>/bot<token>/<method>`. A call that the service rate-limits (429 with
 * `retry_after`) is tried again after that many seconds, up to `max_retry_after_seconds` in
 * all; any other failure becomes a reason a receipt can show (chat not found, message too
 * long, unreachable), never an exception out of a send.
 */
import type { Api } from "grammy";
import { lazyModule } from "../../../platform/core/lazy-module";

/** grammy, loaded when a chat service is first used: most households configure none. */
export const grammy = lazyModule(() => require("grammy") as typeof import("grammy"));
import type { ServiceAnswer } from "../../../../vocabulary/answers";

/** grammy's own AbortSignal type (a shim's); Node's signal is passed as it. */
export type BotSignal = NonNullable<Parameters<Api["getMe"]>[0]>;

export interface BotClientOptions {
  token: string;
  apiBaseUrl: string;
  maxRetryAfterSeconds: number;
  /** Per call, long polls excepted. */
  timeoutSeconds?: number;
  /** Told after each call whether the Bot API answered and took the token (the chat part's health). */
  onReachable?: (reachable: boolean, reason?: string) => void;
}

/** The API answered and knew the bot: any success, or a refusal that is about the request, not the token. */
const botReachable = (err: unknown): boolean => err instanceof grammy().GrammyError && err.error_code !== 401 && err.error_code !== 404 && err.error_code < 500;

/** How a failed call reads in a receipt. */
export function reasonOf(err: unknown): string {
  if (err instanceof grammy().GrammyError) {
    const d = err.description.replace(/^Bad Request: /, "");
    if (/chat not found/i.test(d)) return `chat not found (${err.error_code})`;
    if (/message is too long/i.test(d)) return `message too long (${err.error_code})`;
    if (err.error_code === 429) return `rate limited (429, retry after ${err.parameters.retry_after ?? "?"} s)`;
    if (err.error_code === 401) return "the bot token was refused (401)";
    if (err.error_code === 409) return `conflict (409: ${d}): another process polls this bot, or a webhook is set while in polling mode`;
    if (err.error_code === 403) return `the bot may not write there (403: ${d})`;
    return `${err.method} failed (${err.error_code}: ${d})`;
  }
  if (err instanceof grammy().HttpError) {
    const cause = err.error instanceof Error ? err.error.message : String(err.error);
    return `chat service unreachable (${cause})`;
  }
  return err instanceof Error ? err.message : String(err);
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export class BotClient {
  readonly api: Api;

  constructor(private readonly opts: BotClientOptions) {
    this.api = new (grammy().Api)(opts.token, {
      apiRoot: opts.apiBaseUrl.replace(/\/+$/, ""),
      timeoutSeconds: opts.timeoutSeconds ?? 30,
    });
  }

  /**
   * One Bot API call, retried after a 429's `retry_after` while the waits stay within
   * `max_retry_after_seconds` (the time is real time: the chat service counts it, not the household clock).
   */
  async call<T>(fn: (api: Api, signal?: BotSignal) => Promise<T>, signal?: AbortSignal): Promise<ServiceAnswer<T>> {
    let waited = 0;
    for (;;) {
      try {
        const value = await fn(this.api, signal as unknown as BotSignal | undefined);
        this.opts.onReachable?.(true);
        return { ok: true, value };
      } catch (err) {
        if (!signal?.aborted) this.opts.onReachable?.(botReachable(err), reasonOf(err));
        const retryAfter = err instanceof grammy().GrammyError && err.error_code === 429 ? (err.parameters.retry_after ?? 1) : null;
        if (retryAfter !== null && waited + retryAfter <= this.opts.maxRetryAfterSeconds && !signal?.aborted) {
          waited += retryAfter;
          try {
            await sleep(retryAfter * 1000, signal);
          } catch {
            return { ok: false, reason: "the send was cancelled" };
          }
          continue;
        }
        return { ok: false, reason: reasonOf(err) };
      }
    }
  }
}

/** True for the error the Bot API answers a message over its length limit with. */
export const isTooLong = (reason: string): boolean => reason.startsWith("message too long");
