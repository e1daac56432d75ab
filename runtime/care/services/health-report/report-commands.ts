/**
 * The chat commands of the daily health message, answered by careflow itself in a target's
 * chat (other chats are ignored, as for every command): `/health` answers the same text on
 * demand, `/daily on|off` turns the daily message on or off for that chat, `/daily` says which;
 * each answer in the asking chat's language.
 */
import type { CareContext } from "../../core/context";
import type { ChatLink } from "../chat/chat.service";
import { gatherHealthFacts } from "./report-facts";
import { composeHealthReport } from "./report-text";
import { setWantsDailyReport, wantsDailyReport } from "./report-prefs";
import { chatWords } from "../chat/relative-words";

export function answerHealthCommands(ctx: CareContext, chat: ChatLink): void {
  const household = (): string => ctx.settings.app.language;
  chat.answerCommand("health", async ({ target }) =>
    composeHealthReport(await gatherHealthFacts(ctx, ctx.clock.now()), target.language ?? household(), household()),
  );
  chat.answerCommand("daily", async ({ target, args }) => {
    const t = chatWords(ctx, target.language);
    const at = ctx.settings.health.daily_report_at;
    const choice = args[0]?.toLowerCase();
    if (choice === "on" || choice === "off") await setWantsDailyReport(ctx, target.chat_id, choice === "on");
    else if (choice !== undefined) return t("chat.daily.ask");
    const on = await wantsDailyReport(ctx, target.chat_id);
    return t(on ? "chat.daily.on" : "chat.daily.off", { time: at });
  });
}
