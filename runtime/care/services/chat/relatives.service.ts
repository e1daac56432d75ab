/**
 * The family's chats as the Household page manages them (issue 43 §1, docs/chat.md "Relatives
 * from the Household page"). A chat is a target from the settings file
 * (`notifications.chat_app.targets`, read-only here) or from the `chat_relatives` table (added
 * with a one-time code, or a settings chat whose levels were changed on the page: the table's
 * row wins for its chat id). `chatTargets` is what every send and every check of "who is a
 * family chat" reads, so a chat linked through any instance counts at once, with no restart.
 */
import { createHash, randomInt } from "node:crypto";
import { z } from "zod";
import type { ChatTarget } from "../../../../vocabulary/chat";
import type { NotificationSettings } from "../../../../nodes/_kit/types";
import { ALERT_LEVELS } from "../../../../vocabulary/notifications";
import type { PlatformContext } from "../../../platform/context";
import type { Principal } from "../../../platform/auth/principal";
import { recordAudit } from "../../../platform/audit/audit.store";
import { isoAt, isoNow } from "../../../platform/core/clock";
import { ConflictError, NotFoundError, NotSetUpError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { canonicalTag, LANGUAGE_TAG_HINT } from "../../../platform/i18n/language-tag";
import {
  deleteLinkCode,
  deleteRelativeRow,
  insertLinkCode,
  listRelativeRows,
  pendingLinkCodes,
  pruneLinkCodes,
  redeemLinkCode,
  relativeRow,
  updateRelativeRow,
  upsertRelative,
  type LinkCodeRow,
} from "./relatives.store";

/** How long a code may be sent to the bot: long enough to find the chat app on a phone. */
export const LINK_CODE_MINUTES = 30;
/** Unambiguous when read aloud or typed from a screen: no 0/O, 1/I/L. */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 8;

const levels = z
  .array(z.enum(ALERT_LEVELS))
  .max(ALERT_LEVELS.length)
  .refine((l) => new Set(l).size === l.length, "must not repeat a level");
const name = z.string().trim().min(1, "must not be empty").max(100);
// As a person's: any well-formed tag, kept in its canonical spelling; null follows the household.
const language = z
  .string()
  .refine((t) => canonicalTag(t) !== null, LANGUAGE_TAG_HINT)
  .transform((t) => canonicalTag(t) ?? t)
  .nullable();

export const linkCodeBody = z.object({ name, alert_levels: levels.default([]), language: language.default(null) }).strict();
export const relativeChangeBody = z
  .object({ name: name.optional(), alert_levels: levels.optional(), language: language.optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.alert_levels !== undefined || b.language !== undefined, {
    message: "give name, alert_levels or language",
    path: ["alert_levels"],
  });

export interface RelativeView {
  name: string;
  chat_id: string;
  /** Levels sent to this chat; empty = every level. */
  alert_levels: string[];
  /** The language the bot speaks in this chat (BCP 47); null: the household's `app.language`. */
  language: string | null;
  /** `page`: added on the Household page; `settings`: the settings file's (its levels may be changed on the page). */
  source: "page" | "settings";
  /** A settings file chat whose name or levels the page changed (removing the change gives the file's back). */
  changed_on_page: boolean;
  added_by: string | null;
  added_at: string | null;
}

/** A link code not used yet, as the page lists it: its row without the use it has not had. */
export type PendingCodeView = Omit<LinkCodeRow, "used_at" | "used_chat_id">;

export type MadeLinkCode = PendingCodeView & {
  code: string;
  /** What the relative sends to the bot. */
  message: string;
  /** Opens the bot's chat with the code filled in; null when the bot's username is not known. */
  link: string | null;
};

const digestOf = (code: string): string => createHash("sha256").update(code).digest("hex");
const settingsTargets = (ctx: PlatformContext): readonly ChatTarget[] => ctx.settings.notifications.chat_app.targets;

/** Every family chat: the settings file's, each replaced by its page row when there is one, then the page's own. */
export async function relatives(ctx: PlatformContext): Promise<RelativeView[]> {
  const rows = new Map((await listRelativeRows(ctx.db)).map((r) => [r.chat_id, r]));
  const out: RelativeView[] = [];
  for (const t of settingsTargets(ctx)) {
    const id = String(t.chat_id);
    const row = rows.get(id);
    rows.delete(id);
    out.push({
      name: row?.name ?? t.name,
      chat_id: id,
      alert_levels: [...(row?.alert_levels ?? t.alert_levels)],
      // The page's choice once it made one (a row), else the file's.
      language: row ? row.language : (t.language ?? null),
      source: "settings",
      changed_on_page: !!row,
      added_by: row?.added_by ?? null,
      added_at: row?.added_at ?? null,
    });
  }
  for (const r of rows.values())
    out.push({
      name: r.name,
      chat_id: r.chat_id,
      alert_levels: r.alert_levels,
      language: r.language,
      source: "page",
      changed_on_page: false,
      added_by: r.added_by,
      added_at: r.added_at,
    });
  return out;
}

/**
 * The targets a send or a check reads (a settings chat keeps its number type: sends use it as
 * given), each with the language the bot speaks there: its own, else the household's.
 */
export async function chatTargets(ctx: PlatformContext): Promise<Array<ChatTarget & { alert_levels: string[]; language: string }>> {
  const byId = new Map(settingsTargets(ctx).map((t) => [String(t.chat_id), t.chat_id]));
  return (await relatives(ctx)).map((r) => ({
    name: r.name,
    chat_id: byId.get(r.chat_id) ?? r.chat_id,
    alert_levels: r.alert_levels,
    language: r.language ?? ctx.settings.app.language,
  }));
}

/** The notification settings a send hands its channels, with today's targets in place of the file's. */
export async function withChatTargets(ctx: PlatformContext, notifications: NotificationSettings): Promise<NotificationSettings> {
  return { ...notifications, chat_app: { ...notifications.chat_app, targets: await chatTargets(ctx) } };
}

/** The chat id's target, or null for a chat that is not the family's. */
export async function targetOfChat(ctx: PlatformContext, chatId: string | number): Promise<ChatTarget | null> {
  return (await chatTargets(ctx)).find((t) => String(t.chat_id) === String(chatId)) ?? null;
}

const pendingView = (c: LinkCodeRow): PendingCodeView => ({
  id: c.id,
  name: c.name,
  alert_levels: c.alert_levels,
  language: c.language,
  created_by: c.created_by,
  created_at: c.created_at,
  expires_at: c.expires_at,
});

export async function pendingCodes(ctx: PlatformContext): Promise<PendingCodeView[]> {
  return (await pendingLinkCodes(ctx.db, isoNow(ctx.clock))).map(pendingView);
}

/** A new one-time code for a relative-to-be; answered once (only its digest is kept). */
export async function makeLinkCode(
  ctx: PlatformContext,
  by: Principal,
  body: unknown,
  bot: { configured: boolean; username: string | null },
): Promise<MadeLinkCode> {
  const b = parseInput(linkCodeBody, body);
  const botUsername = bot.username;
  if (!bot.configured)
    throw new NotSetUpError("The chat bot is not set up: set CAREFLOW_CHAT_TOKEN (or notifications.chat_app.token) first", {
      part: "chat",
      message: "The family chat's bot is not set up yet, so no one can send it a code.",
    });
  const now = ctx.clock.now();
  // Codes that can no longer answer anything are let go of here, not by a timer.
  await pruneLinkCodes(ctx.db, isoAt(now - 24 * 3600_000));
  const code = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join("");
  const row = {
    name: b.name,
    alert_levels: b.alert_levels,
    language: b.language,
    created_by: by.name,
    created_at: isoAt(now),
    expires_at: isoAt(now + LINK_CODE_MINUTES * 60_000),
  };
  const id = await insertLinkCode(ctx.db, row, digestOf(code));
  return {
    id,
    ...row,
    code,
    message: `/start ${code}`,
    link: botUsername ? `https://t.me/${encodeURIComponent(botUsername)}?start=${code}` : null,
  };
}

export async function cancelLinkCode(ctx: PlatformContext, id: number): Promise<void> {
  if (!(await deleteLinkCode(ctx.db, id))) throw new NotFoundError(`Code ${id} not found (used, cancelled or expired)`);
}

/**
 * A `/start CODE` from a chat: links the chat as the code's relative, once, when the code is
 * unused and not expired; null for any other code (the chat is told the same either way).
 */
export async function redeemCode(ctx: PlatformContext, code: string, chatId: string): Promise<LinkCodeRow | null> {
  const typed = code.trim().toUpperCase();
  if (!/^[A-Z0-9]{1,64}$/.test(typed)) return null;
  const now = isoNow(ctx.clock);
  const used = await redeemLinkCode(ctx.db, digestOf(typed), chatId, now);
  if (used)
    await recordAudit(ctx.db, { at: now, actor: used.created_by, action: "create", target_type: "relative", target_id: chatId, target_name: used.name }).catch(
      (err: unknown) => ctx.log.warn({ err }, "audit: a linked chat was not recorded"),
    );
  return used;
}

/** The family chat with this id, or a 404. */
export async function relativeByChatId(ctx: PlatformContext, chatId: string): Promise<RelativeView> {
  const found = (await relatives(ctx)).find((r) => r.chat_id === chatId);
  if (!found) throw new NotFoundError(`Relative with chat id '${chatId}' not found`);
  return found;
}

/** A relative's name, levels or language; a settings file chat gets a page row holding the change. */
export async function changeRelative(ctx: PlatformContext, by: Principal, chatId: string, body: unknown): Promise<RelativeView> {
  const change = parseInput(relativeChangeBody, body);
  const before = await relativeByChatId(ctx, chatId);
  const now = isoNow(ctx.clock);
  if (await relativeRow(ctx.db, chatId)) await updateRelativeRow(ctx.db, chatId, change, now);
  else
    await upsertRelative(ctx.db, {
      chat_id: chatId,
      name: change.name ?? before.name,
      alert_levels: change.alert_levels ?? before.alert_levels,
      language: change.language !== undefined ? change.language : before.language,
      added_by: by.name,
      added_at: now,
      updated_at: now,
    });
  await recordAudit(ctx.db, { at: now, actor: by.name, action: "update", target_type: "relative", target_id: chatId, target_name: change.name ?? before.name });
  return relativeByChatId(ctx, chatId);
}

/** Removes a page relative, or a page change of a settings chat (the file's name and levels are back). */
export async function removeRelative(ctx: PlatformContext, by: Principal, chatId: string): Promise<void> {
  const before = await relativeByChatId(ctx, chatId);
  if (before.source === "settings" && !before.changed_on_page)
    throw new ConflictError(`chat_id: '${chatId}' is in the settings file (notifications.chat_app.targets): remove it there`);
  await deleteRelativeRow(ctx.db, chatId);
  await recordAudit(ctx.db, { at: isoNow(ctx.clock), actor: by.name, action: "delete", target_type: "relative", target_id: chatId, target_name: before.name });
}
