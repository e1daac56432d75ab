/** The `app` settings section: the household's name, time zone, language and logging. */
import { z } from "zod";
import { languageTag } from "./settings-kit";

const isTimezone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const appSettings = z
  .object({
    name: z.string().default("careflow"),
    timezone: z.string().refine(isTimezone, "not an IANA time zone name").default("UTC"),
    // The household's language (BCP 47): the senior's screens follow it unless her own person sets another.
    language: languageTag.default("en"),
    log_level: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
    public_url: z.string().url().optional(),
  })
  .strict()
  .prefault({});
