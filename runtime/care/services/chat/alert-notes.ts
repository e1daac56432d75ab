/**
 * The notes careflow writes about an alert in a chat (issue 49), in the chat's language and the
 * household's time: who is on it or resolved it (under every message of the alert), and the
 * answer to a press or a reply that comes after someone resolved it.
 */
import type { CareContext } from "../../core/context";
import type { Alert } from "../../../household/alerts/alerts.service";
import { localParts } from "../../../platform/core/zoned-time";
import type { Words } from "../../../platform/i18n/catalogs";
import { chatWords } from "./relative-words";

/** "08:14" in the household's time zone; now when `iso` is null. */
export function chatTime(ctx: CareContext, iso: string | null): string {
  const p = localParts(iso ? Date.parse(iso) : ctx.clock.now(), ctx.settings.app.timezone);
  return `${String(p.hour).padStart(2, "0")}:${String(p.minute).padStart(2, "0")}`;
}

/**
 * "Anna is on it, 08:14" / "Resolved by Anna, 08:20", in the household's time and `t`'s language
 * (the household's when not given: the alert's history).
 */
export function statusLine(ctx: CareContext, alert: Alert, t: Words = chatWords(ctx)): string {
  const hhmm = (iso: string | null) => chatTime(ctx, iso);
  const assist = [...alert.actions].reverse().find((a) => a.action === "assist");
  if (alert.resolved) {
    const onIt = assist && assist.actor !== alert.resolved_by ? ` ${t("chat.note.was_on_it", { name: assist.actor, time: hhmm(assist.created_at) })}` : "";
    return `${t("chat.note.resolved", { name: alert.resolved_by ?? t("chat.note.someone"), time: hhmm(alert.resolved_at) })}${onIt}`;
  }
  return t("chat.note.on_it", { name: assist?.actor ?? t("chat.note.someone_start"), time: hhmm(assist?.created_at ?? null) });
}

/** "Already resolved by Anna, 08:20": a press or a reply that came after the alert was resolved. */
export const alreadyResolvedText = (ctx: CareContext, alert: Alert, t: Words): string =>
  t("chat.toast.already_resolved", { name: alert.resolved_by ?? t("chat.note.someone"), time: chatTime(ctx, alert.resolved_at) });
