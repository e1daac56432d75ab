/**
 * What the voice companion is told when it delivers something: the default instruction per
 * delivery type (settings `knowledge.voice_defaults` override the shipped ones), and the one
 * composition the spec orders, step override → the resource's column → the type's default →
 * the base realtime instruction. The companion's prompts (care/voice) compose through it too.
 */
import type { Settings } from "../../../../settings";

export type VoiceDefaultKey = "interactive_prompt_default" | "info_card_default" | "quiz_default";

const SHIPPED: Readonly<Record<VoiceDefaultKey, string>> = {
  // A prompt carries its own question; the companion's base instruction is enough.
  interactive_prompt_default: "",
  info_card_default:
    "You are showing the senior an information card. Read its title and text aloud slowly and warmly, in your own simple words, then ask whether they have a question about it.",
  quiz_default:
    "You are playing a gentle quiz with the senior. Ask one question at a time, clearly, and wait for the answer. Praise every try; when an answer is wrong, say the right one kindly and move on. Never hurry them.",
};

export function voiceDefaults(settings: Settings): Record<VoiceDefaultKey, string> {
  const set = settings.knowledge.voice_defaults;
  return {
    interactive_prompt_default: set.interactive_prompt_default ?? SHIPPED.interactive_prompt_default,
    info_card_default: set.info_card_default ?? SHIPPED.info_card_default,
    quiz_default: set.quiz_default ?? SHIPPED.quiz_default,
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
export function deliveryInstruction(settings: Settings, kind: "info_card" | "quiz", step?: string | null, resource?: string | null): string | null {
  const fallback = voiceDefaults(settings)[kind === "info_card" ? "info_card_default" : "quiz_default"];
  return firstSpecific(step, resource, fallback);
}

/** The first layer that is not blank, trimmed. */
function firstSpecific(...layers: Array<string | null | undefined>): string | null {
  return layers.map((t) => t?.trim() ?? "").find((t) => t !== "") ?? null;
}
