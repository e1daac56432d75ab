/**
 * How a notification will read for each person it reaches (issue 49), for the editor's
 * notification form: the step's message with the fixed words careflow puts around it, in the
 * receiver's language, from the same catalogs the channels use. The senior's tablet popup (the
 * level's band above, "OK" under it) and her e-ink card (the band as its title, the time as its
 * footer) in her language; each family chat the step reaches (its buttons, and the note every
 * chat gets once someone presses "I'm on it") in that chat's language. Channels that add no
 * words of their own (speaker, voice companion, announcement, webhook) say the family's message
 * only, so they have nothing to preview.
 */
import type { CareContext } from "../../core/context";
import { seniorLanguage } from "../../../household/persons/senior-language";
import { wordsIn, type Words } from "../../../platform/i18n/catalogs";
import { cardTime } from "../eink/card-chrome";
import { chatTime } from "../chat/alert-notes";
import { RAISES_ALERT } from "../../core/language/alert-levels";

export interface ReceiverPreview {
  /** "Grandma Rose's tablet", "Anna (family chat)". */
  receiver: string;
  channel: string;
  /** The language the fixed words are in (BCP 47) and that language's name for itself. */
  language: string;
  language_name: string;
  /** Words above the message (the popup's band, the card's title); null: none. */
  heading: string | null;
  /** The step's message as written (its `{{keys}}` are filled when it runs); null: the run's own message. */
  message: string | null;
  buttons: string[];
  /** Words under the message (the card's time, the chat's note once someone is on it); null: none. */
  note: string | null;
  /** When the note shows, in the editor's words, when not at once ("once someone presses …"). */
  note_when: string | null;
}

/** What the preview is built from: the form's config and who the audience found. */
export interface PreviewInput {
  alert_level: string;
  channels: readonly string[];
  /** The step's templates by config key (`message_template`, `chat_app_template`, …). */
  templates: Readonly<Record<string, string | undefined>>;
  tablet: string;
  chats: ReadonlyArray<{ name: string; language: string }>;
}

/** The text a channel sends as the step has it: its own template, else `message_template` (as messages.ts picks). */
function written(templates: PreviewInput["templates"], channel: string): string | null {
  for (const key of [`${channel}_template`, "message_template"]) {
    const text = templates[key]?.trim();
    if (text) return text;
  }
  return null;
}

/** The fixed words of one receiver, in its language's words `t`. */
type Chrome = (t: Words) => Pick<ReceiverPreview, "heading" | "buttons" | "note" | "note_when">;

/** The previews, one per receiver with fixed words, in the order of the step's channels. */
export async function wordsPreview(ctx: CareContext, input: PreviewInput): Promise<ReceiverPreview[]> {
  const household = ctx.settings.app.language;
  const now = ctx.clock.now();
  const zone = ctx.settings.app.timezone;
  const hers = await seniorLanguage(ctx);
  const level = (t: Words): string => t(`popup.level.${input.alert_level}`, { defaultValue: input.alert_level });
  const preview = (channel: string, receiver: string, language: string, chrome: Chrome): ReceiverPreview => {
    const t = wordsIn(language, household);
    return { receiver, channel, language, language_name: t("language.name"), message: written(input.templates, channel), ...chrome(t) };
  };
  // The chat channel adds its buttons (and so the note) only where the level raises an alert.
  const alert = RAISES_ALERT.has(input.alert_level);

  return input.channels.flatMap((channel): ReceiverPreview[] => {
    if (channel === "pwa_popup_text")
      return [preview(channel, input.tablet, hers, (t) => ({ heading: level(t), buttons: [t("popup.ok")], note: null, note_when: null }))];
    if (channel === "eink")
      return [preview(channel, "e-ink display", hers, (t) => ({ heading: level(t), buttons: [], note: cardTime(now, hers, zone), note_when: null }))];
    if (channel === "chat_app")
      return input.chats.map((chat) =>
        preview(channel, `${chat.name} (family chat)`, chat.language, (t) => ({
          heading: null,
          buttons: alert ? [t("chat.button.on_it"), t("chat.button.resolved")] : [],
          note: alert ? t("chat.note.on_it", { name: chat.name, time: chatTime(ctx, null) }) : null,
          // The editor's own words (it is in English); the note itself is in the chat's language.
          note_when: alert ? `added to every chat's message once someone presses "${t("chat.button.on_it")}"` : null,
        })),
      );
    return [];
  });
}
