/**
 * A press of a chat alert's button, or a reply to its message (chat.service.ts), acted on: the
 * alert taken on ("I'm on it") or resolved, and the answer the person sees, in the chat's language.
 */
import type { CareContext } from "../../core/context";
import { actOnAlert, getAlert } from "../../../household/alerts/alerts.service";
import { ConflictError, NotFoundError } from "../../../platform/core/errors";
import type { Words } from "../../../platform/i18n/catalogs";
import { acknowledgeAlertSignal } from "./alert-signal-ack";
import { alreadyResolvedText } from "./alert-notes";

/**
 * Acts on the alert and acknowledges the dementia signal it came from, if any (`feedback`: what
 * the person wrote, null for a button); the answer a person sees (a button's toast), in `t`'s
 * language, and whether it was done (`ok`: false when it was resolved already, is gone, or failed).
 */
export async function actFromChat(
  ctx: CareContext,
  t: Words,
  alertId: number,
  action: "assist" | "dismiss",
  actor: string,
  note: string,
  feedback: string | null,
): Promise<{ ok: boolean; text: string }> {
  try {
    const alert = await getAlert(ctx, alertId);
    if (alert.resolved) return { ok: false, text: alreadyResolvedText(ctx, alert, t) };
    if (action === "assist" && alert.assistance_needed) {
      const by = [...alert.actions].reverse().find((a) => a.action === "assist")?.actor ?? t("chat.note.someone");
      return { ok: true, text: t("chat.toast.already_on_it", { name: by }) };
    }
    await actOnAlert(ctx, alertId, { action, note }, actor);
    await acknowledgeAlertSignal(ctx, alert.execution_id, actor, feedback).catch((err: unknown) =>
      ctx.log.error({ err, alert_id: alertId }, "acknowledging the alert's dementia signal failed"),
    );
    return { ok: true, text: action === "assist" ? t("chat.toast.thanks_on_it") : t("chat.toast.marked_resolved") };
  } catch (err) {
    // Resolved between the read and the write (another chat, the terminal).
    if (err instanceof ConflictError) {
      const now = await getAlert(ctx, alertId).catch(() => null);
      if (now?.resolved) return { ok: false, text: alreadyResolvedText(ctx, now, t) };
    }
    if (err instanceof NotFoundError) return { ok: false, text: t("chat.toast.gone") };
    ctx.log.error({ err, alert_id: alertId, action }, "chat: acting on the alert failed");
    return { ok: false, text: t("chat.toast.failed") };
  }
}
