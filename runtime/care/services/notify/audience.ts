/**
 * Who a notification step would reach, in a caregiver's words, for the editor's notification
 * form (issue 42): the alert level's default channels ("Reminder: tablet popup, speaker,
 * e-ink display") and, for the channels the step uses, who reads or hears it ("Grandma Rose's tablet,
 * the family chat (Anna), Hallway e-ink display"), so it is seen before the deploy that the
 * senior would read a message meant for the family, or that nobody would.
 */
import { z } from "zod";
import { CHANNEL_NAMES, WORDS_KEYS } from "../../../../nodes/steps/notification/notification.node";
import { ALERT_LEVELS } from "../../../../vocabulary/notifications";
import type { CareContext } from "../../core/context";
import { parseInput } from "../../../platform/core/validation";
import { listPersons } from "../../../household/persons/persons.service";
import { listSensors } from "../../../household/sensors/sensors.service";
import { levelPlan } from "../../core/language/alert-levels";
import { channelWords } from "../../core/language/channel-names";
import { chatTargets } from "../chat/relatives.service";
import { wordsPreview, type ReceiverPreview } from "./words-preview";

export interface ChannelAudience {
  channel: string;
  label: string;
  /** Who reads or hears it through this channel; empty when nobody would. */
  reaches: string[];
  /** Why nobody would, or what to know (set only then). */
  note?: string;
}

export interface NotificationAudience {
  alert_level: string;
  /** "Reminder: tablet popup, speaker, e-ink display". */
  level_defaults: string;
  default_channels: Array<{ channel: string; label: string }>;
  /** Every channel's words, for the form's checkboxes. */
  labels: Record<string, string>;
  /** The step leaves `channels` out: the level's channels are used. */
  uses_level_defaults: boolean;
  channels: ChannelAudience[];
  /** "Grandma Rose's tablet, the family chat (Anna), Hallway e-ink display", or "nobody". */
  text: string;
  /** The message with careflow's fixed words around it, for each receiver, in its language (issue 49). */
  previews: ReceiverPreview[];
}

const audienceBody = z.object({
  config: z
    .looseObject({
      alert_level: z.enum(ALERT_LEVELS).default("warning"),
      // Any list, even an empty or wrong one: the form asks while the caregiver chooses.
      channels: z.array(z.enum(CHANNEL_NAMES)).optional(),
      eink_targets: z.array(z.string()).optional(),
      hub_media_player: z.string().optional(),
      webhook_url: z.string().optional(),
      // The step's words fields, each the form sends: they must be text.
      ...Object.fromEntries(WORDS_KEYS.map((k) => [k, z.string().optional()])),
    })
    .prefault({}),
});

const capital = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);
const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** Who the notification form's config would reach. */
export async function notificationAudience(ctx: CareContext, body: unknown): Promise<NotificationAudience> {
  const { config } = parseInput(audienceBody, body);
  const level = levelPlan(ctx.settings, config.alert_level);
  const usesDefaults = config.channels === undefined;
  const channels = [...new Set(config.channels ?? level.channels)];
  const [persons, displays] = await Promise.all([listPersons(ctx), listSensors(ctx, { sensor_type: "eink" })]);
  // The web app is the senior's tablet; with one person in the household, she has a name.
  const senior = persons.length === 1 ? persons[0].display_name || persons[0].person_id : "the senior";
  const tablet = `${senior}'s tablet`;
  const notes = ctx.settings.notifications;
  const familyChats = await chatTargets(ctx);
  const chats = familyChats.filter((t) => !t.alert_levels.length || t.alert_levels.includes(config.alert_level));

  const reach = (channel: string): Omit<ChannelAudience, "channel" | "label"> => {
    switch (channel) {
      case "pwa_popup_text":
        return { reaches: [tablet] };
      case "pwa_realtime_ai":
        return { reaches: [`the voice companion on ${tablet}`] };
      case "announcement":
        return { reaches: [`${tablet}, spoken aloud`] };
      case "hub_speaker_tts":
      case "tts":
        return { reaches: [config.hub_media_player ? `the speaker ${config.hub_media_player}` : "the hub speaker"] };
      case "chat_app": {
        if (!chats.length) return { reaches: [], note: `no family chat is set up for the ${config.alert_level} level` };
        return { reaches: [`the family chat (${chats.map((t) => t.name).join(", ")})`] };
      }
      case "eink": {
        const chosen = config.eink_targets?.length ? config.eink_targets : notes.eink.default_targets;
        const shown = chosen.length ? chosen.map((id) => displays.find((d) => d.sensor_id === id)?.name || id) : displays.map((d) => d.name || d.sensor_id);
        if (!shown.length) return { reaches: [], note: "the household has no e-ink display" };
        return { reaches: shown };
      }
      case "webhook": {
        const url = config.webhook_url || notes.webhook.url;
        return url ? { reaches: [`the webhook at ${hostOf(url)}`] } : { reaches: [], note: "no webhook URL is set" };
      }
      default:
        return { reaches: [], note: `unknown channel '${channel}'` };
    }
  };

  const templates = Object.fromEntries(WORDS_KEYS.map((k) => [k, typeof config[k] === "string" ? config[k] : undefined]));
  const previews = await wordsPreview(ctx, { alert_level: config.alert_level, channels, templates, tablet, chats });
  const audience = channels.map((channel) => ({ channel, label: channelWords(channel), ...reach(channel) }));
  const who = [...new Set(audience.flatMap((a) => a.reaches))];
  return {
    alert_level: config.alert_level,
    level_defaults: `${capital(config.alert_level)}: ${level.channels.length ? level.channels.map(channelWords).join(", ") : "no channels"}`,
    default_channels: level.channels.map((channel) => ({ channel, label: channelWords(channel) })),
    labels: Object.fromEntries(CHANNEL_NAMES.map((c) => [c, channelWords(c)])),
    uses_level_defaults: usesDefaults,
    channels: audience,
    text: who.length ? who.join(", ") : "nobody",
    previews,
  };
}
