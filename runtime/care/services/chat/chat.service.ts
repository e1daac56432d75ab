/**
 * The family's chat (`notifications.chat_app`): sends alerts to the targets' chats, with the
 * triggering frame and, for an alert, "I'm on it" / "Resolved" buttons; takes a button press or a
 * reply to an alert's message as an acknowledgement (who, when), after which every message of
 * the alert in every chat is edited to say who took it; and fires chat_app rules on the
 * configured commands from the targets' chats; links a new relative's chat on `/start CODE` (a
 * Household page code, relatives.service.ts), the one message read from a chat it does not know.
 * The targets are the settings file's and the page's (`targetOfChat`). Updates arrive by long polling (`mode:
 * polling`, the default) or at `POST /api/v1/chat/webhook` (`mode: webhook`). Every word the
 * bot adds (buttons, notes, toasts, answers) is in the language of the chat it goes to (issue 49).
 */
import { cutWhole, cutWithEllipsis } from "./cut-text";
import type { InlineKeyboard } from "grammy";
import type { Update, Message, CallbackQuery } from "grammy/types";
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import type { ChatSendRequest, ChatSendResult, ChatTarget } from "../../../../vocabulary/chat";
import type { CareContext } from "../../core/context";
import { fromJsonText } from "../../../platform/db/json-column";
import { alertHistoryRefs, alertIdByRef, escalationRow, getAlert, recordAlertHistory, type Alert } from "../../../household/alerts/alerts.service";
import { fireLogged, rulesWithTrigger } from "../../core/pipeline/triggers/trigger-kit";
import { triggerContext } from "../../core/pipeline/engine/types";
import { BotClient, grammy, isTooLong } from "./bot-client";
import { chatTargets, redeemCode, targetOfChat } from "./relatives.service";
import { chatWords, noCodeText, welcomeText, wrongCodeText } from "./relative-words";
import { statusLine } from "./alert-notes";
import { actFromChat } from "./chat-act";
import { replyResolves } from "./resolve-words";
import type { Words } from "../../../platform/i18n/catalogs";
import { sharpLib } from "../../../platform/core/sharp-lib";
import { leasesOf } from "../../../platform/cluster/cluster";
import { whileHolding } from "../../../platform/cluster/leases";

/** The Bot API's longest message text. */
export const MAX_TEXT = 4096;
const CHANNEL = "chat_app";

type ChatSettings = CareContext["settings"]["notifications"]["chat_app"];

export const ackData = (alertId: number): string => `ack:${alertId}`;
export const resolveData = (alertId: number): string => `res:${alertId}`;

const buttonsFor = (t: Words, alertId: number, withAck: boolean): InlineKeyboard => {
  const k = new (grammy().InlineKeyboard)();
  if (withAck) k.text(t("chat.button.on_it"), ackData(alertId));
  return k.text(t("chat.button.resolved"), resolveData(alertId));
};

const ref = (chatId: number | string, messageId: number): string => `${chatId}:${messageId}`;

function splitRef(r: string): { chat_id: string; message_id: number } | null {
  const i = r.lastIndexOf(":");
  const id = Number(r.slice(i + 1));
  return i > 0 && Number.isInteger(id) ? { chat_id: r.slice(0, i), message_id: id } : null;
}

/** A command careflow answers itself; its text is the reply in the chat that asked (null: none). */
export type CommandAnswer = (asked: { target: ChatTarget; args: string[] }) => Promise<string | null>;

export interface ChatLink {
  readonly client: BotClient | null;
  send(request: ChatSendRequest, signal: AbortSignal): Promise<ServiceAnswer<ChatSendResult[]>>;
  /** A plain text to one chat; the message's id, or why it did not go. */
  sendText(chatId: string | number, text: string): Promise<ServiceAnswer<number>>;
  /** Answers `/<command>` from a target's chat itself, whatever `commands` lists; no rule fires on it. */
  answerCommand(command: string, answer: CommandAnswer): void;
  /** One update from the chat service (polling or webhook). */
  handleUpdate(update: Update): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when the edits and commands in progress are done (tests). */
  settled(): Promise<void>;
}

/** The current chat settings (a reload swaps the object). */
const chatSettings = (ctx: CareContext): ChatSettings => ctx.settings.notifications.chat_app;

export function startChat(ctx: CareContext): ChatLink {
  const s = chatSettings(ctx);
  const client = s.token
    ? new BotClient({
        token: s.token,
        apiBaseUrl: s.api_base_url,
        maxRetryAfterSeconds: s.max_retry_after_seconds,
        onReachable: (up, reason) => ctx.parts?.report("chat", up, reason),
      })
    : null;
  const link = new ChatService(ctx, client);
  if (!client) ctx.log.info("chat app: no bot token (CAREFLOW_CHAT_TOKEN); chat_app sends report that");
  else ctx.log.info({ api_base_url: s.api_base_url, mode: s.mode, targets: s.targets.length }, "chat app started");
  return link;
}

class ChatService implements ChatLink {
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly answers = new Map<string, CommandAnswer>();
  private readonly unsubscribe: () => void;
  private stopped = false;
  private stopPolling: (() => Promise<void>) | null = null;
  /** The bot's own username (getMe), asked once when a command names a bot. */
  private username: Promise<string | null> | undefined;

  constructor(
    private readonly ctx: CareContext,
    readonly client: BotClient | null,
  ) {
    this.unsubscribe = ctx.bus.subscribe("alert.acknowledged", ({ alert_id }) => this.track(this.editAll(alert_id)));
    // The Bot API allows one poller per bot: with several instances, the one holding the lease polls.
    if (client && chatSettings(ctx).mode === "polling")
      this.stopPolling = whileHolding(leasesOf(ctx), "chat-poller", () => {
        const poller = new AbortController();
        this.track(this.poll(client, poller.signal));
        return () => poller.abort();
      });
    if (client && chatSettings(ctx).mode === "webhook") this.track(this.registerWebhook(client));
  }

  /**
   * Webhook mode with `app.public_url` set: tells the chat service where to post updates, with the
   * secret token. Without a public URL the operator calls setWebhook (docs/chat.md).
   */
  private async registerWebhook(client: BotClient): Promise<void> {
    const s = chatSettings(this.ctx);
    const base = this.ctx.settings.app.public_url;
    if (!base || !s.webhook_secret) {
      this.ctx.log.warn("chat app in webhook mode without app.public_url or webhook_secret: call setWebhook yourself (docs/chat.md)");
      return;
    }
    const url = `${base.replace(/\/+$/, "")}/api/v1/chat/webhook`;
    const done = await client.call((api) => api.setWebhook(url, { secret_token: s.webhook_secret!, allowed_updates: ["message", "callback_query"] }));
    if (done.ok) this.ctx.log.info({ url }, "chat webhook registered");
    else this.ctx.log.warn({ url, reason: done.reason }, "chat webhook not registered");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    await this.stopPolling?.();
    await this.settled();
  }

  async settled(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  private track<T>(p: Promise<T>): void {
    const t = p.catch((err: unknown) => this.ctx.log.error({ err }, "chat work failed")).finally(() => this.inflight.delete(t));
    this.inflight.add(t);
  }

  // ---- sending ------------------------------------------------------------------------

  answerCommand(command: string, answer: CommandAnswer): void {
    this.answers.set(command, answer);
  }

  async sendText(chatId: string | number, text: string): Promise<ServiceAnswer<number>> {
    const client = this.client;
    if (!client) return { ok: false, reason: "no chat bot configured: set CAREFLOW_CHAT_TOKEN (or notifications.chat_app.token)" };
    const sent = await client.call((api, sig) => api.sendMessage(chatId, text.slice(0, MAX_TEXT), {}, sig));
    return sent.ok ? { ok: true, value: sent.value.message_id } : sent;
  }

  async send(request: ChatSendRequest, signal: AbortSignal): Promise<ServiceAnswer<ChatSendResult[]>> {
    const client = this.client;
    if (!client) return { ok: false, reason: "no chat bot configured: set CAREFLOW_CHAT_TOKEN (or notifications.chat_app.token)" };
    const targets = await this.ladder(request);
    const photo = request.photo ? await scaled(request.photo, request.max_image_side).catch(() => null) : null;
    const results = await Promise.all(targets.map((t) => this.sendTo(client, t, request, photo, signal)));
    // Acknowledged while this send was under way: its new messages say so at once, like the others.
    if (request.alert_id !== null && results.some((r) => r.delivered)) {
      const alert = await getAlert(this.ctx, request.alert_id).catch(() => null);
      if (alert && (alert.resolved || alert.assistance_needed)) this.track(this.editAll(alert.id));
    }
    return { ok: true, value: results };
  }

  /** The escalation ladder: the first targets only until `everyone_after_minutes` have passed since the alert was raised. */
  private async ladder(request: ChatSendRequest): Promise<readonly ChatTarget[]> {
    const s = chatSettings(this.ctx);
    if (s.first_targets.length === 0 || request.alert_id === null) return request.targets;
    const first = request.targets.filter((t) => s.first_targets.includes(t.name));
    if (first.length === 0) return request.targets;
    const alert = await getAlert(this.ctx, request.alert_id).catch(() => null);
    if (!alert) return request.targets;
    const age = this.ctx.clock.now() - Date.parse(alert.timestamp);
    return age < s.everyone_after_minutes * 60_000 ? first : request.targets;
  }

  private async sendTo(
    client: BotClient,
    target: ChatTarget,
    request: ChatSendRequest,
    photo: Uint8Array | null,
    signal: AbortSignal,
  ): Promise<ChatSendResult> {
    const withButtons = request.alert_id !== null;
    const notes: string[] = [];
    if (photo) {
      const sent = await client.call((api, sig) => api.sendPhoto(target.chat_id, new (grammy().InputFile)(photo, "frame.jpg"), {}, sig), signal);
      if (!sent.ok) notes.push(`photo not sent: ${sent.reason}`);
      // A reply to the photo acknowledges too: its ref leads back to the alert.
      else if (request.alert_id !== null) {
        await recordAlertHistory(this.ctx, request.alert_id, [
          {
            event: "photo_delivered",
            channel: CHANNEL,
            target: target.name,
            escalation: request.escalation,
            detail: `photo ${sent.value.message_id}`,
            ref: ref(target.chat_id, sent.value.message_id),
          },
        ]);
      }
    }
    let text = cutWithEllipsis(request.text, MAX_TEXT);
    const markup = withButtons ? { reply_markup: buttonsFor(chatWords(this.ctx, target.language), request.alert_id!, true) } : {};
    let sent = await client.call((api, sig) => api.sendMessage(target.chat_id, text, markup, sig), signal);
    if (!sent.ok && isTooLong(sent.reason)) {
      // The limit counts after entity parsing; a shorter text goes through.
      text = cutWithEllipsis(text, 1001);
      sent = await client.call((api, sig) => api.sendMessage(target.chat_id, text, markup, sig), signal);
    }
    const detail = sent.ok ? [`message ${sent.value.message_id}`, ...notes].join("; ") : [sent.reason, ...notes].join("; ");
    if (request.alert_id !== null) {
      await recordAlertHistory(this.ctx, request.alert_id, [
        {
          event: sent.ok ? "delivered" : "failed",
          channel: CHANNEL,
          target: target.name,
          escalation: request.escalation,
          detail,
          ref: sent.ok ? ref(target.chat_id, sent.value.message_id) : null,
        },
      ]);
    }
    return { target: target.name, delivered: sent.ok, detail };
  }

  // ---- acknowledgement ----------------------------------------------------------------

  /**
   * Edits every message of the alert in every chat to say who took it, keeping "Resolved" while
   * it is open; each chat reads the note and the button in its own language.
   */
  private async editAll(alertId: number): Promise<void> {
    const client = this.client;
    if (!client) return;
    const alert = await getAlert(this.ctx, alertId).catch(() => null);
    if (!alert) return;
    const refs = await alertHistoryRefs(this.ctx, alertId, CHANNEL, "delivered");
    if (refs.length === 0) return;
    const original = await this.originalText(alert);
    // A chat no longer listed (removed since the send) reads the household's language.
    const languages = new Map((await chatTargets(this.ctx)).map((t) => [String(t.chat_id), t.language]));
    await Promise.all(
      refs.map(async ({ ref: r, target }) => {
        const m = splitRef(r);
        if (!m) return;
        const t = chatWords(this.ctx, languages.get(m.chat_id));
        const line = statusLine(this.ctx, alert, t);
        const text = `${cutWhole(original, MAX_TEXT - line.length - 4)}\n\n${line}`;
        const markup = alert.resolved ? { reply_markup: new (grammy().InlineKeyboard)() } : { reply_markup: buttonsFor(t, alertId, false) };
        const done = await client.call((api) => api.editMessageText(m.chat_id, m.message_id, text, markup));
        // "message is not modified" means it already says this: nothing to record.
        if (!done.ok && /not modified/i.test(done.reason)) return;
        await recordAlertHistory(this.ctx, alertId, [
          {
            event: done.ok ? "edited" : "edit_failed",
            channel: CHANNEL,
            target,
            escalation: alert.escalation_count,
            detail: done.ok ? statusLine(this.ctx, alert) : done.reason,
          },
        ]);
      }),
    );
  }

  /** The alert's message as the chats got it (the family's words, in whatever language they wrote). */
  private async originalText(alert: Alert): Promise<string> {
    const row = await escalationRow(this.ctx, alert.id);
    const plan = fromJsonText<{ messages?: Record<string, string> } | null>(row?.notification_json ?? null, null);
    return plan?.messages?.[CHANNEL] ?? alert.description;
  }

  // ---- updates ------------------------------------------------------------------------

  private async poll(client: BotClient, signal: AbortSignal): Promise<void> {
    let offset = 0;
    let failures = 0;
    // getUpdates is refused (409) while a webhook is set: polling mode removes it, keeping pending updates.
    const removed = await client.call((api, sig) => api.deleteWebhook({ drop_pending_updates: false }, sig), signal);
    if (!removed.ok) this.ctx.log.warn({ reason: removed.reason }, "chat updates: deleteWebhook failed; polling anyway");
    while (!this.stopped && !signal.aborted) {
      const timeout = chatSettings(this.ctx).poll_timeout_seconds;
      const got = await client.call((api, sig) => api.getUpdates({ offset, timeout, allowed_updates: ["message", "callback_query"] }, sig), signal);
      if (this.stopped || signal.aborted) return;
      if (!got.ok) {
        failures += 1;
        if (failures === 1 || failures % 20 === 0) this.ctx.log.warn({ reason: got.reason, failures }, "chat updates: getUpdates failed; trying again");
        await new Promise((r) => setTimeout(r, Math.min(4000, 250 * 2 ** Math.min(failures, 4))));
        continue;
      }
      failures = 0;
      for (const u of got.value) {
        offset = Math.max(offset, u.update_id + 1);
        await this.handleUpdate(u).catch((err: unknown) => this.ctx.log.error({ err, update_id: u.update_id }, "chat update failed"));
      }
    }
  }

  async handleUpdate(update: Update): Promise<void> {
    if (update.callback_query) return this.onButton(update.callback_query);
    if (update.message) return this.onMessage(update.message);
  }

  /** The target a chat belongs to (the settings file's or the Household page's); null (and logged) for a chat that is not one of the targets'. */
  private async allowed(chatId: number | string | undefined, what: string): Promise<ChatTarget | null> {
    const t = chatId === undefined ? null : await targetOfChat(this.ctx, chatId);
    if (!t) this.ctx.log.warn({ chat_id: chatId, what }, "chat update from an unknown chat ignored");
    return t;
  }

  private async onButton(q: CallbackQuery): Promise<void> {
    const client = this.client!;
    const target = await this.allowed(q.message?.chat.id, "button");
    const m = /^(ack|res):(\d+)$/.exec(q.data ?? "");
    const t = chatWords(this.ctx, target?.language);
    if (!target || !m) {
      // A target's chat pressing a button careflow does not know (an older careflow's): it no longer works.
      await client.call((api) => api.answerCallbackQuery(q.id, { text: t(target ? "chat.toast.expired" : "chat.toast.not_for_chat") }));
      return;
    }
    const action = m[1] === "ack" ? "assist" : "dismiss";
    const actor = q.from.first_name || q.from.username || target.name;
    const answer = await actFromChat(this.ctx, t, Number(m[2]), action, actor, `chat ${target.name}: button`, null);
    await client.call((api) => api.answerCallbackQuery(q.id, { text: answer.text }));
  }

  private async onMessage(msg: Message): Promise<void> {
    const text = msg.text ?? "";
    const replyTo = msg.reply_to_message;
    if (replyTo) {
      const alertId = await alertIdByRef(this.ctx, ref(msg.chat.id, replyTo.message_id));
      if (alertId !== null) {
        const target = await this.allowed(msg.chat.id, "reply");
        if (!target) return;
        const actor = msg.from?.first_name || msg.from?.username || target.name;
        const resolves = replyResolves(text);
        const answer = await actFromChat(
          this.ctx,
          chatWords(this.ctx, target.language),
          alertId,
          resolves ? "dismiss" : "assist",
          actor,
          text.slice(0, 500) || `chat ${target.name}: reply`,
          text,
        );
        // A reply has no toast: what went wrong is said in the chat (what went right, every message's note says).
        if (!answer.ok) await this.reply(msg, answer.text, "reply");
        return;
      }
    }
    if (text.startsWith("/")) await this.onCommand(msg, text);
  }

  private async onCommand(msg: Message, text: string): Promise<void> {
    const [head = "", ...args] = text.trim().split(/\s+/);
    const command = head.slice(1).split("@")[0]!.toLowerCase();
    // A relative joins from a chat careflow does not know yet: `/start CODE` is read before the check.
    if (command === "start" && args.length > 0) return this.onStartCode(msg, args[0]!);
    const target = await this.allowed(msg.chat.id, command === "start" ? "start" : "command");
    if (!target) {
      if (command === "start") await this.reply(msg, noCodeText(chatWords(this.ctx)), "start");
      return;
    }
    const t = chatWords(this.ctx, target.language);
    const answer = this.answers.get(command);
    if (answer) {
      const text = await answer({ target, args }).catch((err: unknown) => {
        this.ctx.log.error({ err, chat: target.name, command }, "chat command: answering failed");
        return t("chat.toast.failed");
      });
      const sent = text === null ? null : await this.sendText(msg.chat.id, text);
      if (sent && !sent.ok) this.ctx.log.warn({ chat: target.name, command, reason: sent.reason }, "chat command: the answer was not sent");
      return;
    }
    if (!chatSettings(this.ctx).commands.includes(command)) {
      this.ctx.log.info({ chat_id: msg.chat.id, command }, "chat command not configured");
      // `/start` in a linked chat needs nothing; a command meant for another bot in a group is not ours to answer.
      if (command !== "start" && (await this.addressedToUs(head))) await this.reply(msg, this.unknownCommandText(t, command), "unknown command");
      return;
    }
    this.ctx.bus.publish("chat.command", { command, args, text, chat_id: String(msg.chat.id) });
    const firer = this.ctx.firer;
    if (!firer) return;
    const input = {
      command,
      args,
      text,
      chat_id: String(msg.chat.id),
      from_user: { id: msg.from?.id ?? null, first_name: msg.from?.first_name ?? null, username: msg.from?.username ?? null },
    };
    const rules = (await rulesWithTrigger(this.ctx, "chat_app")).filter((r) => !r.chat_command || r.chat_command === command);
    await Promise.all(
      rules.map((r) =>
        fireLogged(this.ctx, firer, {
          rule_id: r.id,
          trigger: triggerContext({ trigger_type: "chat_app", sensor_id: r.primary_sensor_id, webhook_payload: structuredClone(input) }),
          trigger_input: structuredClone(input),
        }),
      ),
    );
  }

  /** `/start CODE` (Household page, "Add a relative"): links the chat once for a good code; any other code changes nothing and is answered politely. */
  private async onStartCode(msg: Message, code: string): Promise<void> {
    const used = await redeemCode(this.ctx, code, String(msg.chat.id));
    if (used) this.ctx.log.info({ chat_id: msg.chat.id, relative: used.name }, "chat linked with a one-time code");
    else this.ctx.log.warn({ chat_id: msg.chat.id }, "chat: a wrong, used or expired code was sent");
    // Welcomed in the language the code was made for; a stranger's chat in the household's.
    await this.reply(msg, used ? welcomeText(chatWords(this.ctx, used.language), used.name, used.alert_levels) : wrongCodeText(chatWords(this.ctx)), "start");
  }

  /** The commands a target's chat can send, for the answer to one it cannot: careflow's own and the rules'. */
  private unknownCommandText(t: Words, command: string): string {
    const known = [...new Set([...this.answers.keys(), ...chatSettings(this.ctx).commands])].sort();
    return t("chat.unknown_command", { command, commands: known.map((c) => `/${c}`).join(", ") });
  }

  /** `/cmd` or `/cmd@<this bot>`: in a group with several bots, `/cmd@other_bot` is the other's. */
  private async addressedToUs(head: string): Promise<boolean> {
    const to = head.split("@")[1];
    if (!to) return true;
    this.username ??= this.client!.call((api) => api.getMe()).then((me) => (me.ok ? (me.value.username ?? null) : null));
    const mine = await this.username;
    return mine !== null && mine.toLowerCase() === to.toLowerCase();
  }

  private async reply(msg: Message, text: string, what: string): Promise<void> {
    const sent = await this.sendText(msg.chat.id, text);
    if (!sent.ok) this.ctx.log.warn({ chat_id: msg.chat.id, what, reason: sent.reason }, "chat: the answer was not sent");
  }
}

/** The frame scaled so its longest side is at most `maxSide`, as JPEG. */
export async function scaled(bytes: Uint8Array, maxSide: number): Promise<Uint8Array> {
  return sharpLib()(bytes).rotate().resize({ width: maxSide, height: maxSide, fit: "inside", withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
}
