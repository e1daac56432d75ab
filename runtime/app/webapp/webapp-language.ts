/**
 * The senior's language on her tablet (issue 49): which language, and every fixed word in it,
 * go to the web app in its `welcome` frame, and again in a `language` frame to every tablet
 * connected when it changes (her person's `language`, or who is a Senior). Kept in memory and
 * read again on every change of a member, here or on another instance, so the welcome stays
 * the synchronous first frame a tablet gets.
 */
import { seniorLanguage } from "../../household/persons/senior-language";
import type { PlatformContext } from "../../platform/context";
import { messagesFor, type Messages } from "../../platform/i18n/catalogs";

export interface WebAppLanguage {
  /** Her BCP 47 tag: the page's `lang`, and the locale its dates and times are written in. */
  language: string;
  /** Every fixed word of the app in that language (its catalog, completed along its fallback chain). */
  messages: Messages;
}

export interface WebAppLanguageWatch {
  current(): WebAppLanguage;
  /** Reads the members again now (a test's or the start's await). */
  refresh(): Promise<void>;
  /** Stops listening and waits for a read under way: the store closes after it, not during it. */
  stop(): Promise<void>;
}

export function watchWebAppLanguage(ctx: PlatformContext): WebAppLanguageWatch {
  const household = ctx.settings.app.language;
  const of = (language: string): WebAppLanguage => ({ language, messages: messagesFor(language, household) });
  let now = of(household);
  let reading: Promise<void> = Promise.resolve();
  const refresh = (): Promise<void> => {
    reading = reading.then(async () => {
      const language = await seniorLanguage(ctx).catch((err: unknown) => {
        ctx.log.warn({ err }, "the senior's language could not be read; the tablet keeps the one it has");
        return now.language;
      });
      if (language === now.language) return;
      now = of(language);
      // To this instance's tablets: every instance hears the change and tells its own.
      ctx.webapp.deliver({ type: "language", ...now }, null);
    });
    return reading;
  };
  const unsubscribe = [
    ctx.bus.subscribe("person.added", () => void refresh(), { otherInstances: true }),
    ctx.bus.subscribe("person.changed", () => void refresh(), { otherInstances: true }),
  ];
  return {
    current: () => now,
    refresh,
    stop: async () => {
      unsubscribe.forEach((u) => u());
      await reading;
    },
  };
}
