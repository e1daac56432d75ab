/**
 * What the voice companion is told when it delivers something: the default instruction per
 * delivery type (settings `knowledge.voice_defaults` override the shipped ones), and the one
 * composition the spec orders, step override → the resource's column → the type's default →
 * the base realtime instruction. The companion's prompts (care/surfaces/voice) compose through it too.
 */
import type { Settings } from "../../../../../settings";
import { SOURCE_LANGUAGE, wordsIn, type Words } from "../../../../platform/i18n/catalogs";

export type VoiceDefaultKey = "interactive_prompt_default" | "info_card_default" | "quiz_default";

/**
 * The shipped defaults are in the message catalogs (`spoken.companion.*`), so the companion is
 * told in the senior's language; a household's own (settings) are used as written.
 */
const SHIPPED: Readonly<Record<VoiceDefaultKey, string | null>> = {
  // A prompt carries its own question; the companion's base instruction is enough.
  interactive_prompt_default: null,
  info_card_default: "spoken.companion.info_card_default",
  quiz_default: "spoken.companion.quiz_default",
};

export function voiceDefaults(settings: Settings, words: Words = wordsIn(SOURCE_LANGUAGE)): Record<VoiceDefaultKey, string> {
  const set = settings.knowledge.voice_defaults;
  const shipped = (key: VoiceDefaultKey): string => (SHIPPED[key] === null ? "" : words(SHIPPED[key]));
  return {
    interactive_prompt_default: set.interactive_prompt_default ?? shipped("interactive_prompt_default"),
    info_card_default: set.info_card_default ?? shipped("info_card_default"),
    quiz_default: set.quiz_default ?? shipped("quiz_default"),
  };
}

export interface VoiceLayers {
  /** The step's own instruction (a node's `voice_instruction` or prompt instruction). */
  step?: string | null;
  /** The card's or quiz's `voice_instruction` column. */
  resource?: string | null;
  /** The type's default (`voiceDefaults(settings)[key]`). */
  default?: string | null;
  /** The base realtime instruction (`llm.realtime.instructions`, else the companion's own). */
  base: string;
}

/**
 * The instruction the companion receives: the first of step override, resource and default that
 * is not blank (the more specific one replaces the more general), then the base instruction,
 * which always applies (it says who the companion is and how it speaks).
 */
export function composeVoiceInstruction(layers: VoiceLayers): string {
  const specific = firstSpecific(layers.step, layers.resource, layers.default);
  return [specific, layers.base.trim()].filter((p): p is string => Boolean(p)).join("\n\n");
}

/**
 * The specific part of a delivery's instruction (step override, else the resource's column, else
 * the type's default), for a conversation whose base the companion adds (`composeInstructions`).
 */
export function deliveryInstruction(
  settings: Settings,
  kind: "info_card" | "quiz",
  step?: string | null,
  resource?: string | null,
  words: Words = wordsIn(SOURCE_LANGUAGE),
): string | null {
  const fallback = voiceDefaults(settings, words)[kind === "info_card" ? "info_card_default" : "quiz_default"];
  return firstSpecific(step, resource, fallback);
}

/** The first layer that is not blank, trimmed. */
function firstSpecific(...layers: Array<string | null | undefined>): string | null {
  return layers.map((t) => t?.trim() ?? "").find((t) => t !== "") ?? null;
}
