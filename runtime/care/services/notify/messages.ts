/**
 * What each channel says. A channel's own template (`<channel>_template`) wins, then
 * `message_template`, then the base message: `translation`, else
 * `logic_response.user_notification`, else `vision_response` from pipeline_data.
 */
import { resolvePath, toText } from "../../core/language/conditions";
import { renderTemplate } from "../../core/language/templates";

const BASE_MESSAGE_PATHS = ["translation", "logic_response.user_notification", "vision_response"] as const;

/** The first non-empty of the base message sources, as text; "" when there is none. */
export function baseMessage(data: Readonly<Record<string, unknown>>): string {
  for (const path of BASE_MESSAGE_PATHS) {
    const text = toText(resolvePath(data, path)).trim();
    if (text !== "") return text;
  }
  return "";
}

export type TemplateConfig = Partial<Record<string, unknown>> & { message_template?: string };

/** The message for one channel; `fallback` is used when every source renders empty. */
export function channelMessage(channel: string, config: TemplateConfig, data: Readonly<Record<string, unknown>>, fallback: string): string {
  for (const key of [`${channel}_template`, "message_template"]) {
    const template = config[key];
    if (typeof template === "string" && template.trim() !== "") {
      const text = renderTemplate(template, data).trim();
      if (text !== "") return text;
    }
  }
  return baseMessage(data) || fallback;
}

/** The message of every channel, by channel name. */
export function channelMessages(
  channels: readonly string[],
  config: TemplateConfig,
  data: Readonly<Record<string, unknown>>,
  fallback: string,
): Record<string, string> {
  return Object.fromEntries(channels.map((c) => [c, channelMessage(c, config, data, fallback)]));
}
