/**
 * What the voice companion is told. The instruction composes as the spec says: the step's
 * override first (else the type's default), then the base realtime instruction (`llm.realtime.instructions`, else the
 * one below). What a notification or prompt wants said goes in as a system message of the
 * conversation, so one conversation can carry several.
 */
import type { ConverseRequest } from "../../../nodes/_kit/care-services";
import { composeVoiceInstruction, type VoiceLayers } from "../knowledge/voice/voice-defaults";

const BASE = (appName: string): string =>
  [
    `You are the voice companion of ${appName}, a care system in the home of an older person. You speak with them, not with their family.`,
    "Speak slowly, warmly and briefly: one or two short sentences at a time, plain words, no lists, no technical terms.",
    "When you need facts about the home (rooms, who is where, the weather, the time, alerts), call the functions you have and say the answer in your own words; never read data out as it came.",
    "If they sound hurt, confused or frightened, stay calm, reassure them and say that their family is being told.",
  ].join(" ");

/**
 * The spec's composition (care/knowledge/voice/voice-defaults.ts, the one place it is written):
 * the step's instruction, else the resource's, else the type's default, then the base.
 */
export function composeInstructions(
  base: string | null,
  stepInstruction: string | null,
  appName: string,
  more: Pick<VoiceLayers, "resource" | "default"> = {},
): string {
  return composeVoiceInstruction({ step: stepInstruction, ...more, base: (base ?? "").trim() || BASE(appName) });
}

/** The system message that starts the companion speaking; null: it greets and listens. */
export function openingMessage(request: ConverseRequest): string | null {
  const text = request.text?.trim();
  if (request.prompt && text) {
    return [
      `Ask the senior this now, in your own words, and wait for the answer: "${text}"`,
      `When they say they are fine (like "${request.prompt.dismiss_text}"), call respond_to_interactive_prompt with action "dismiss".`,
      `When they need help, or you cannot tell that they are well (like "${request.prompt.escalate_text}"), call it with action "escalate".`,
      "Then tell them briefly what happens next.",
    ].join(" ");
  }
  if (request.quiz) {
    return [
      `You are doing a gentle quiz with the senior now. Begin by saying, in your own words: "${text ?? "Shall we do a little quiz?"}"`,
      "Then call get_current_quiz_question and read the question and its choices aloud, slowly. Wait for the answer.",
      "Call submit_quiz_answer with the question's question_ord and the id of the choice they mean (or their words as open_ended_text).",
      "Say kindly whether it was right (never make them feel bad), then go on with the next question it gives back, one at a time.",
      "When it says the quiz is done, tell them their score warmly and say goodbye.",
    ].join(" ");
  }
  if (text) return `Tell the senior this now, in your own words: "${text}"`;
  if (request.reason === "senior") return "The senior tapped the Talk button. Greet them briefly and ask how you can help.";
  return null;
}
