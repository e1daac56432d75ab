/**
 * A fake chat service speaking the Bot API (Telegram's protocol), for the chat channel's tests,
 * the alert-loop bench and for watching alerts arrive by hand (`npm run fake-chat`, see
 * chat-server-main.ts).
 *
 * Every method is `POST|GET /bot<token>/<method>` with a JSON, urlencoded or multipart body
 * (a photo upload is multipart); the answer is `{"ok": true, "result": …}` or
 * `{"ok": false, "error_code", "description", "parameters"?}` with that HTTP status, as the
 * Bot API answers. A wrong token is 401 `Unauthorized`, an unknown method 404 `Not Found`.
 *
 * Methods: `getMe`; `getUpdates` `{offset, limit, timeout}` (long polling: waits up to
 * `timeout` seconds for an update with id ≥ offset; updates below `offset` are confirmed and
 * forgotten); `sendMessage` `{chat_id, text, reply_markup?, reply_parameters?}` (empty text 400
 * `message text is empty`, over 4096 characters 400 `message is too long`, an unknown chat 400
 * `chat not found`); `sendPhoto` `{chat_id, photo (a file), caption?}` (the photo's size is
 * read from the image); `editMessageText` `{chat_id, message_id, text, reply_markup?}` (400
 * `message to edit not found`; the same text and markup 400 `message is not modified`);
 * `answerCallbackQuery` `{callback_query_id, text?}` (once per query the fake sent: an unknown or
 * already answered id is 400 `query is too old and response timeout expired or query ID is
 * invalid`); `setWebhook`, `deleteWebhook`.
 *
 * As strict as the Bot API on what careflow sends: a second `getUpdates` while one waits ends
 * the first with 409 `Conflict: terminated by other getUpdates request` (two pollers of one bot),
 * and `getUpdates` while a webhook is set is 409 too; a caption over 1024 characters is 400
 * `message caption is too long`; a button's `callback_data` over 64 bytes is 400
 * `BUTTON_DATA_INVALID`.
 *
 * Scripting: `startFakeChat({token, chats})`, then `pressButton(chatId, messageId, data, from)`
 * and `sendText(chatId, text, from, replyToMessageId?)` queue updates as the chat service would
 * (with `webhookUrl` set they are POSTed there instead, with the secret token header);
 * `failNext(method, error)` answers the next call of a method with an error (a 429 carries
 * `parameters.retry_after`); `stop()` stops listening (a chat outage) and `restart()` listens
 * again on the same port; `messages`, `edits`, `photos`, `callbackAnswers`, `calls` record what
 * careflow sent; `waitFor(pred)` resolves once a recorded call matches.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import multer from "multer";
import sharp from "sharp";

export interface ChatUser {
  id: number;
  is_bot: false;
  first_name: string;
  username?: string;
}

export interface FakeChatInfo {
  id: number;
  type: "private" | "group";
  title?: string;
  first_name?: string;
}

export interface SentMessage {
  message_id: number;
  chat_id: number;
  text: string | null;
  reply_markup: unknown;
  photo: { width: number; height: number; bytes: number } | null;
  /** Date.now() when it arrived. */
  received_at: number;
  edited_at: number | null;
}

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
  status: number;
}

export interface FakeChatError {
  error_code: number;
  description: string;
  retry_after?: number;
}

export interface FakeChatOptions {
  token: string;
  /** The chats the bot is in; a send elsewhere is `chat not found`. */
  chats: FakeChatInfo[];
  port?: number;
  log?: (line: string) => void;
}

export interface FakeChat {
  readonly url: string;
  readonly token: string;
  readonly messages: SentMessage[];
  readonly calls: RecordedCall[];
  readonly callbackAnswers: Array<{ callback_query_id: string; text: string | null }>;
  /** Queues an update: a button press on a message (the message must exist). */
  pressButton(chatId: number, messageId: number, data: string, from: ChatUser): void;
  /** Queues an update: a text message from a person, optionally a reply to a message of the bot. */
  sendText(chatId: number, text: string, from: ChatUser, replyToMessageId?: number): void;
  failNext(method: string, error: FakeChatError, times?: number): void;
  /** Drops the failures still queued for a method: it answers normally again. */
  stopFailing(method: string): void;
  waitFor(pred: (c: RecordedCall) => boolean, timeoutMs?: number): Promise<RecordedCall>;
  message(chatId: number, messageId: number): SentMessage | undefined;
  pendingUpdates(): number;
  /** getUpdates calls waiting for an update. */
  waitingPolls(): number;
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

type Params = Record<string, unknown>;

class BotError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

const bad = (d: string) => new BotError(400, `Bad Request: ${d}`);

/** A field of a multipart or urlencoded body is text: objects (reply_markup) come JSON-encoded. */
function parsed(v: unknown): unknown {
  if (typeof v !== "string") return v;
  const t = v.trim();
  if (t.startsWith("{") || t.startsWith("[")) {
    try {
      return JSON.parse(t);
    } catch {
      return v;
    }
  }
  return v;
}

export async function startFakeChat(opts: FakeChatOptions): Promise<FakeChat> {
  const log = opts.log ?? (() => undefined);
  const chats = new Map(opts.chats.map((c) => [c.id, c]));
  const messages: SentMessage[] = [];
  const calls: RecordedCall[] = [];
  const callbackAnswers: FakeChat["callbackAnswers"] = [];
  const failures = new Map<string, FakeChatError[]>();
  const waiters = new Set<{ pred: (c: RecordedCall) => boolean; resolve: (c: RecordedCall) => void }>();
  let updates: Array<{ update_id: number } & Record<string, unknown>> = [];
  let nextUpdateId = 1;
  let nextMessageId = 1;
  let nextCallback = 1;
  const pollers = new Set<() => void>();
  /** The waiting getUpdates, ended with a 409 when another one arrives. */
  let polling: ((e: BotError) => void) | null = null;
  let webhookSet = false;
  /** Button presses sent and not yet answered. */
  const openQueries = new Set<string>();
  const bot = { id: 7000001, is_bot: true, first_name: "careflow", username: "careflow_bot" };
  const now = () => Math.floor(Date.now() / 1000);

  const chatOf = (id: unknown): FakeChatInfo => {
    const c = chats.get(Number(id));
    if (!c) throw bad("chat not found");
    return c;
  };
  const messageView = (m: SentMessage) => ({
    message_id: m.message_id,
    from: bot,
    chat: chatOf(m.chat_id),
    date: Math.floor(m.received_at / 1000),
    ...(m.text !== null ? { text: m.text } : {}),
    ...(m.photo
      ? {
          photo: [
            { file_id: `photo-${m.message_id}`, file_unique_id: `u${m.message_id}`, width: m.photo.width, height: m.photo.height, file_size: m.photo.bytes },
          ],
        }
      : {}),
    ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
    ...(m.edited_at ? { edit_date: Math.floor(m.edited_at / 1000) } : {}),
  });
  const wake = () => {
    for (const w of [...pollers]) w();
  };
  const push = (u: Record<string, unknown>) => {
    updates.push({ update_id: nextUpdateId++, ...u });
    log(`update queued: ${JSON.stringify(u).slice(0, 160)}`);
    wake();
  };

  const methods: Record<string, (p: Params, files: Express.Multer.File[]) => Promise<unknown>> = {
    getMe: async () => bot,
    setWebhook: async () => {
      webhookSet = true;
      return true;
    },
    deleteWebhook: async () => {
      webhookSet = false;
      return true;
    },
    getUpdates: async (p) => {
      if (webhookSet) throw new BotError(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
      polling?.(new BotError(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"));
      const offset = Number(p.offset ?? 0);
      if (offset > 0) updates = updates.filter((u) => u.update_id >= offset);
      const limit = Math.min(100, Number(p.limit ?? 100));
      const timeout = Math.min(50, Number(p.timeout ?? 0));
      const ready = () => updates.filter((u) => u.update_id >= offset).slice(0, limit);
      if (ready().length || timeout <= 0) return ready();
      await new Promise<void>((resolve, reject) => {
        const end = () => {
          clearTimeout(t);
          pollers.delete(done);
          if (polling === conflict) polling = null;
        };
        const done = () => {
          end();
          resolve();
        };
        const conflict = (e: BotError) => {
          end();
          reject(e);
        };
        const t = setTimeout(done, timeout * 1000);
        pollers.add(done);
        polling = conflict;
      });
      return ready();
    },
    sendMessage: async (p) => {
      const chat = chatOf(p.chat_id);
      const text = typeof p.text === "string" ? p.text : "";
      if (!text.trim()) throw bad("message text is empty");
      if ([...text].length > 4096) throw bad("message is too long");
      const m: SentMessage = {
        message_id: nextMessageId++,
        chat_id: chat.id,
        text,
        reply_markup: markupOf(p),
        photo: null,
        received_at: Date.now(),
        edited_at: null,
      };
      messages.push(m);
      log(`→ chat ${chat.id} message ${m.message_id}: ${text.replace(/\n/g, " ⏎ ")}${m.reply_markup ? `  [${buttonsText(m.reply_markup)}]` : ""}`);
      return messageView(m);
    },
    sendPhoto: async (p, files) => {
      const chat = chatOf(p.chat_id);
      const file = files.find((f) => f.fieldname === "photo") ?? files[0];
      if (!file) throw bad("there is no photo in the request");
      const meta = await sharp(file.buffer)
        .metadata()
        .catch(() => null);
      if (!meta?.width || !meta.height) throw bad("IMAGE_PROCESS_FAILED");
      const caption = typeof p.caption === "string" ? p.caption : null;
      if (caption !== null && [...caption].length > 1024) throw bad("message caption is too long");
      const reply_markup = markupOf(p);
      const m: SentMessage = {
        message_id: nextMessageId++,
        chat_id: chat.id,
        text: caption,
        reply_markup,
        photo: { width: meta.width, height: meta.height, bytes: file.size },
        received_at: Date.now(),
        edited_at: null,
      };
      messages.push(m);
      log(`→ chat ${chat.id} photo ${m.message_id}: ${meta.width}x${meta.height}, ${file.size} bytes`);
      return messageView(m);
    },
    editMessageText: async (p) => {
      const chat = chatOf(p.chat_id);
      const m = messages.find((x) => x.chat_id === chat.id && x.message_id === Number(p.message_id));
      if (!m) throw bad("message to edit not found");
      const text = typeof p.text === "string" ? p.text : "";
      if (!text.trim()) throw bad("message text is empty");
      if ([...text].length > 4096) throw bad("MESSAGE_TOO_LONG");
      const markup = markupOf(p);
      if (m.text === text && JSON.stringify(m.reply_markup) === JSON.stringify(markup)) {
        throw bad(
          "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        );
      }
      m.text = text;
      m.reply_markup = markup;
      m.edited_at = Date.now();
      log(`✎ chat ${chat.id} message ${m.message_id}: ${text.replace(/\n/g, " ⏎ ")}`);
      return messageView(m);
    },
    answerCallbackQuery: async (p) => {
      if (!openQueries.delete(String(p.callback_query_id))) throw bad("query is too old and response timeout expired or query ID is invalid");
      callbackAnswers.push({ callback_query_id: String(p.callback_query_id), text: typeof p.text === "string" ? p.text : null });
      log(`callback ${String(p.callback_query_id)} answered: ${String(p.text ?? "")}`);
      return true;
    },
  };

  const app = express();
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: 50 * 1024 * 1024 } });
  app.use(express.json({ limit: "10mb" }), express.urlencoded({ extended: false }));
  app.all("/bot:token/:method", upload.any(), (req, res) => {
    const method = req.params.method!;
    const params: Params = { ...(req.query as Params), ...(req.body as Params) };
    const files = (req.files as Express.Multer.File[] | undefined) ?? [];
    const answer = (status: number, body: unknown) => {
      const call: RecordedCall = { method, params, at: Date.now(), status };
      calls.push(call);
      for (const w of [...waiters])
        if (w.pred(call)) {
          waiters.delete(w);
          w.resolve(call);
        }
      res.status(status).json(body);
    };
    const fail = (e: BotError) =>
      answer(e.code, {
        ok: false,
        error_code: e.code,
        description: e.description,
        ...(e.retryAfter !== undefined ? { parameters: { retry_after: e.retryAfter } } : {}),
      });
    if (req.params.token !== opts.token) return fail(new BotError(401, "Unauthorized"));
    const impl = methods[method];
    if (!impl) return fail(new BotError(404, "Not Found"));
    const queued = failures.get(method);
    const scripted = queued?.shift();
    if (scripted) {
      const d =
        scripted.error_code === 429 && scripted.retry_after !== undefined ? `Too Many Requests: retry after ${scripted.retry_after}` : scripted.description;
      return fail(new BotError(scripted.error_code, d, scripted.retry_after));
    }
    impl(params, files).then(
      (result) => answer(200, { ok: true, result }),
      (err: unknown) => (err instanceof BotError ? fail(err) : fail(new BotError(500, `Internal Server Error: ${String(err)}`))),
    );
  });

  let server = http.createServer(app);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(opts.port ?? 0);
  const url = `http://127.0.0.1:${port}`;
  const stopServer = () =>
    new Promise<void>((resolve) => {
      wake();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  return {
    url,
    token: opts.token,
    messages,
    calls,
    callbackAnswers,
    pressButton(chatId, messageId, data, from) {
      const m = messages.find((x) => x.chat_id === chatId && x.message_id === messageId);
      if (!m) throw new Error(`no message ${messageId} in chat ${chatId}`);
      const id = String(nextCallback++);
      openQueries.add(id);
      push({ callback_query: { id, from, chat_instance: `ci-${chatId}`, data, message: messageView(m) } });
    },
    sendText(chatId, text, from, replyTo) {
      // A person who writes to the bot has opened a chat with it: the bot may answer there from now on.
      const chat = chats.get(chatId) ?? { id: chatId, type: "private" as const, first_name: from.first_name };
      chats.set(chatId, chat);
      const reply = replyTo !== undefined ? messages.find((x) => x.chat_id === chatId && x.message_id === replyTo) : undefined;
      const entities = text.startsWith("/") ? [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0]!.length }] : undefined;
      push({
        message: {
          message_id: nextMessageId++,
          from,
          chat,
          date: now(),
          text,
          ...(entities ? { entities } : {}),
          ...(reply ? { reply_to_message: messageView(reply) } : {}),
        },
      });
    },
    failNext(method, error, times = 1) {
      const q = failures.get(method) ?? [];
      for (let i = 0; i < times; i++) q.push(error);
      failures.set(method, q);
    },
    stopFailing(method) {
      failures.delete(method);
    },
    waitFor(pred, timeoutMs = 10_000) {
      const found = calls.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve };
        waiters.add(w);
        setTimeout(() => {
          if (waiters.delete(w)) reject(new Error(`fake chat: no matching call within ${timeoutMs} ms`));
        }, timeoutMs).unref();
      });
    },
    message: (chatId, messageId) => messages.find((x) => x.chat_id === chatId && x.message_id === messageId),
    pendingUpdates: () => updates.length,
    waitingPolls: () => pollers.size,
    stop: stopServer,
    async restart() {
      server = http.createServer(app);
      await listen(port);
    },
    close: stopServer,
  };
}

/** A message's inline keyboard, refused as the Bot API refuses it: callback data of 1 to 64 bytes. */
function markupOf(p: Params): unknown {
  const markup = parsed(p.reply_markup) ?? null;
  const rows = (markup as { inline_keyboard?: Array<Array<{ callback_data?: unknown }>> } | null)?.inline_keyboard ?? [];
  for (const b of rows.flat()) {
    if (b.callback_data === undefined) continue;
    const bytes = Buffer.byteLength(String(b.callback_data));
    if (bytes < 1 || bytes > 64) throw bad("BUTTON_DATA_INVALID");
  }
  return markup;
}

/** The inline buttons' labels, for the log. */
export function buttonsText(markup: unknown): string {
  const rows = (markup as { inline_keyboard?: Array<Array<{ text: string; callback_data?: string }>> })?.inline_keyboard ?? [];
  return rows
    .flat()
    .map((b) => `${b.text}${b.callback_data ? ` → ${b.callback_data}` : ""}`)
    .join(" | ");
}
