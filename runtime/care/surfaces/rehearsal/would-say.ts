/**
 * What a rehearsed run would have done, in a caregiver's words for the Rehearse tab: "would
 * send to the family chat: “Someone at the door”", not `chat_app`. The machine `kind` and
 * `target` stay in the answer beside it.
 */
import { channelWords } from "../../core/language/channel-names";

const quoted = (text: string): string => (text.trim() ? `: “${text.trim()}”` : "");

/** A would-be effect as `would-send.ts` records it: its kind, its channel or service, its text. */
export interface WouldEffect {
  kind: string;
  target: string;
  text: string;
}

export function wouldSay(w: WouldEffect): string {
  switch (w.kind) {
    case "notification":
      return `would send to the ${channelWords(w.target)}${quoted(w.text)}`;
    case "prompt":
      return `would ask the senior${quoted(w.text)}`;
    case "webapp":
      return `would show on the tablet${quoted(w.text)}`;
    case "speech":
      return `would say aloud${quoted(w.text)}`;
    case "eink":
      return `would show on the e-ink display${quoted(w.text)}`;
    case "chat":
      return `would write in the family chat (${w.target})${quoted(w.text)}`;
    case "hub_call":
      return `would ask the home hub to ${w.target.replace(/[._]/g, " ")}${w.text ? ` (${w.text})` : ""}`;
    case "card":
      return `would show ${w.text}`;
    case "quiz":
      return `would start ${w.text}`;
    default:
      return `would send${quoted(w.text)}`;
  }
}
