/**
 * What a rehearsed run would have done to the world, kept instead of done: each message on a
 * channel with its rendered text, each hub call, e-ink render, speech, chat message, card or
 * quiz, and each question to an outside service that was not asked ("not rehearsed").
 */
import { wouldSay } from "./would-say";

export type WouldSendKind = "notification" | "hub_call" | "speech" | "eink" | "webapp" | "chat" | "card" | "quiz" | "prompt";

export interface WouldSend {
  /** ISO-8601 time on the rehearsal's clock. */
  at: string;
  execution_id: number | null;
  kind: WouldSendKind;
  /** The channel or service: `chat_app`, `pwa_popup_text`, `light.turn_on`, ... */
  target: string;
  /** The rendered text a person would have read or heard (empty when there is none). */
  text: string;
  alert_level?: string;
  /** The same in a caregiver's words ("would send to the family chat: “…”"), what the Rehearse tab shows. */
  said: string;
}

export interface NotRehearsed {
  at: string;
  execution_id: number | null;
  /** The outside service that was not asked: `llm`, `person_identification`, `scene_analysis`, `semantic_memory`. */
  service: string;
  reason: string;
}

export interface ReplayedAnswer {
  at: string;
  execution_id: number | null;
  service: string;
  /** The recorded run whose answer was used. */
  from_execution_id: number;
}

/** The rehearsal's record of effects, filled by the rehearsal's services. */
export class EffectLog {
  readonly sends: WouldSend[] = [];
  readonly notRehearsed: NotRehearsed[] = [];
  readonly replayed: ReplayedAnswer[] = [];

  constructor(private readonly now: () => number) {}

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }

  send(s: Omit<WouldSend, "at" | "said">): void {
    this.sends.push({ at: this.stamp(), ...s, said: wouldSay(s) });
  }

  skipped(s: Omit<NotRehearsed, "at">): void {
    this.notRehearsed.push({ at: this.stamp(), ...s });
  }

  usedRecorded(r: Omit<ReplayedAnswer, "at">): void {
    this.replayed.push({ at: this.stamp(), ...r });
  }
}
