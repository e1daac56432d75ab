import { z } from "zod";
import { defineChannel } from "../../_kit/define";

export const spec = defineChannel({
  type: "announcement",
  displayName: "Announce on tablet",
  description: "Speaks the message aloud in every open web app with the household's text-to-speech.",
  version: 1,
  config: z
    .object({
      mode: z.enum(["stream", "file"]).default("stream").describe("`stream` sends audio as it is made; `file` sends a link to it"),
      voice: z.string().optional().describe("Voice id; empty = tts.default_voice"),
      language: z.string().optional().describe("Language code, e.g. en or hi; empty = tts.default_language, else the senior's language"),
    })
    .strict(),
  // A rule picks the mode on its notification step; the schema above refuses anything else.
  step: {
    order: 8,
    options: {
      announcement_mode: z
        .enum(["stream", "file"])
        .optional()
        .describe("Announcement in the web app: `stream` (default) sends audio as it is made; `file` a link to a clip"),
    },
  },
  configFrom: (options) => (options.announcement_mode === undefined ? {} : { mode: options.announcement_mode }),
  palette: { color: "#F3B567", icon: "font-awesome/fa-bullhorn" },
});
