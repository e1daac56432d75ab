/**
 * What the bot says to a relative (issue 43 §1), in the chat's language (issue 49): the welcome
 * after `/start CODE`, the answer to a code that does not work (the same for wrong, used and
 * expired: no hint of which), how to join, and the Household page's test message; the levels
 * always in the family's words. Every word from the catalogs' `chat.*`.
 */
import { ALERT_LEVELS } from "../../../../vocabulary/notifications";
import type { PlatformContext } from "../../../platform/context";
import { wordsIn, type Words } from "../../../platform/i18n/catalogs";
import { LINK_CODE_MINUTES, type RelativeView } from "./relatives.service";

/** "emergencies and warnings", "every alert". */
export function levelsInWords(t: Words, levels: readonly string[]): string {
  if (levels.length === 0 || levels.length === ALERT_LEVELS.length) return t("chat.levels.every");
  const said = ALERT_LEVELS.filter((l) => levels.includes(l)).map((l) => t(`chat.levels.${l}`));
  return said.length === 1 ? said[0]! : t("chat.levels.list", { list: said.slice(0, -1).join(", "), last: said[said.length - 1] });
}

export const welcomeText = (t: Words, name: string, levels: readonly string[]): string =>
  t("chat.welcome", { name, levels: levelsInWords(t, levels), on_it: t("chat.button.on_it"), resolved: t("chat.button.resolved") });

export const wrongCodeText = (t: Words): string => t("chat.wrong_code", { minutes: LINK_CODE_MINUTES });

export const noCodeText = (t: Words): string => t("chat.no_code");

export const testText = (t: Words, r: RelativeView): string => t("chat.test", { name: r.name, levels: levelsInWords(t, r.alert_levels) });

/** The words of a chat whose language is `language` (null or not set: the household's). */
export const chatWords = (ctx: PlatformContext, language?: string | null): Words => wordsIn(language ?? ctx.settings.app.language, ctx.settings.app.language);
