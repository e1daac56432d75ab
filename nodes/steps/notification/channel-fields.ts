/**
 * The notification step's channel fields, composed from what each channel declares
 * (`ChannelSpec.step`): a new channel brings its own words and options without an edit here.
 */
import type { z } from "zod";
import type { ChannelSpec } from "../../_kit/types";

type Shape = Record<string, z.ZodType>;

/** The channel's words field as the step names it. */
export const wordsKey = (channel: string) => `${channel}_template`;

export function stepFieldsOfChannels(channels: readonly ChannelSpec[]): { words: Shape; options: Shape } {
  const words: Shape = {};
  const options: Shape = {};
  for (const { type, step } of channels) {
    if (step.words) words[wordsKey(type)] = step.words;
    for (const [key, field] of Object.entries(step.options ?? {})) {
      // One field on the step for a shared option (the hub speaker's and the tts clip's speaker).
      if ((key in options && options[key] !== field) || key in words) throw new Error(`channels declare the notification field ${key} twice, differently`);
      options[key] = field;
    }
  }
  return { words, options };
}
