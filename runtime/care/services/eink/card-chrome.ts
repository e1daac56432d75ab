/**
 * The words careflow itself puts around a message on an e-ink card (issue 49): the alert
 * level's word in the template's `title` region ("Reminder", "Erinnerung", "याद रखें": the
 * tablet popup's band, the same catalog key) and the time it was shown in its `footer` region
 * ("Tuesday, June 2 at 7:35 PM", "Dienstag, 2. Juni um 19:35"), both in the senior's language,
 * the time by `Intl` in `app.timezone`. Only for a notification's card, and only in a region the
 * template has that the message does not fill: a caregiver's own template without those
 * regions, or a REST render naming its regions, gets nothing added.
 */
import type { CareContext } from "../../core/context";
import { seniorLanguage } from "../../../household/persons/senior-language";
import { translate } from "../../../platform/i18n/catalogs";
import { mainRegion, type Region } from "./region";
import type { RenderRequest } from "./render-request";
import { resolveTemplate } from "./template-resolve";

export const CHROME_REGIONS = { level: "title", time: "footer" } as const;

/** "Tuesday, June 2 at 7:35 PM" in `language`, in the household's zone. */
export function cardTime(ms: number, language: string, timeZone: string): string {
  return new Intl.DateTimeFormat(language, { weekday: "long", day: "numeric", month: "long", hour: "numeric", minute: "2-digit", timeZone }).format(ms);
}

/** The chrome's texts for regions of `regions` (by name) that exist, are not the main one, and are not given. */
export function chromeTexts(
  regions: readonly Region[],
  given: Readonly<Record<string, string>>,
  words: { level: string; time: string },
): Record<string, string> {
  const main = mainRegion(regions)?.name;
  const free = (name: string): boolean => name !== main && regions.some((r) => r.name === name) && given[name] === undefined;
  const out: Record<string, string> = {};
  if (free(CHROME_REGIONS.level)) out[CHROME_REGIONS.level] = words.level;
  if (free(CHROME_REGIONS.time)) out[CHROME_REGIONS.time] = words.time;
  return out;
}

/** The request with the level's word and the time added in the template's chrome regions. */
export async function withCardChrome(ctx: CareContext, request: RenderRequest, alertLevel: string): Promise<RenderRequest> {
  const template = await resolveTemplate(ctx, request);
  const language = await seniorLanguage(ctx);
  const household = ctx.settings.app.language;
  const words = {
    level: translate(language, `popup.level.${alertLevel}`, { defaultValue: alertLevel }, household),
    time: cardTime(ctx.clock.now(), language, ctx.settings.app.timezone),
  };
  const chrome = chromeTexts(template.regions, request.regions ?? {}, words);
  return Object.keys(chrome).length === 0 ? request : { ...request, regions: { ...request.regions, ...chrome } };
}
