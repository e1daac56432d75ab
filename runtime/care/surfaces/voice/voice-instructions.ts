/**
 * What the voice companion is told. The instruction composes as the spec says: the step's
 * override first (else the type's default), then the base realtime instruction (`llm.realtime.instructions`, else the
 * one below). What a notification or prompt wants said goes in as a system message of the
 * conversation, so one conversation can carry several.
 */
import type { ConverseRequest } from "../../../../vocabulary/voice";
import { SOURCE_LANGUAGE, wordsIn, type Words } from "../../../platform/i18n/catalogs";
import { composeVoiceInstruction, type VoiceLayers } from "../../services/knowledge/voice/voice-defaults";

/**
 * Who the companion is and how it speaks, in the senior's language (catalog `spoken.companion.*`),
 * with the order to keep to her language: a family may write a message in another one.
 */
const BASE = (appName: string, words: Words): string => [words("spoken.companion.base", { app: appName }), words("spoken.companion.language")].join(" ");

/**
 * The spec's composition (care/services/knowledge/voice/voice-defaults.ts, the one place it is written):
 * the step's instruction, else the resource's, else the type's default, then the base.
 */
export function composeInstructions(
  base: string | null,
  stepInstruction: string | null,
  appName: string,
  more: Pick<VoiceLayers, "resource" | "default"> = {},
  words: Words = wordsIn(SOURCE_LANGUAGE),
): string {
  return composeVoiceInstruction({ step: stepInstruction, ...more, base: (base ?? "").trim() || BASE(appName, words) });
}

/** The system message that starts the companion speaking, in the senior's language; null: it greets and listens. */
export function openingMessage(request: ConverseRequest, words: Words = wordsIn(SOURCE_LANGUAGE)): string | null {
  const text = request.text?.trim();
  if (request.prompt && text) {
    return words("spoken.companion.ask", { text, dismiss: request.prompt.dismiss_text, escalate: request.prompt.escalate_text });
  }
  if (request.quiz) return words("spoken.companion.quiz", { intro: text ?? words("spoken.companion.quiz_opening") });
  if (text) return words("spoken.companion.tell", { text });
  if (request.reason === "senior") return words("spoken.companion.talk_button");
  return null;
}
