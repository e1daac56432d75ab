/**
 * The senior's language: what her tablet's fixed words are in. careflow names no one person
 * "the senior", but the spec's alert profiles do: a member whose profile is Senior is one the
 * household looks after. Her own `language` wins; if the Senior members set different
 * languages (two people sharing one tablet), or none sets one, the household's `app.language`.
 */
import type { PlatformContext } from "../../platform/context";
import { wordsIn, type Words } from "../../platform/i18n/catalogs";
import { listPersons } from "./persons.service";

export async function seniorLanguage(ctx: PlatformContext): Promise<string> {
  const persons = await listPersons(ctx);
  const chosen = new Set(persons.filter((p) => p.alert_profile === "senior" && p.language).map((p) => p.language as string));
  return chosen.size === 1 ? [...chosen][0] : ctx.settings.app.language;
}

/** Her words: what careflow itself says to her (the tablet's, the companion's), falling back to the household's, then English. */
export async function seniorWords(ctx: PlatformContext): Promise<Words> {
  return wordsIn(await seniorLanguage(ctx), ctx.settings.app.language);
}
