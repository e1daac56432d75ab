/**
 * The ready sentence of a system_health run ("The kitchen camera has sent nothing since
 * 14:02"), in the household's timezone, so a notification's template needs no logic of its own.
 */
import type { PartChangeEvent } from "../../../../platform/core/event-bus";
import { localParts } from "../../../../platform/core/zoned-time";

const CONTACT_KINDS = new Set(["camera", "display", "terminal"]);
const LINK_KINDS = new Set(["hub", "tracking", "chat", "tablet"]);

/** "Kitchen camera" -> "The kitchen camera"; a name that starts with "The" or an acronym (NATS) keeps its case. */
export function theName(name: string): string {
  if (/^the\s/i.test(name)) return name.charAt(0).toUpperCase() + name.slice(1);
  const keepCase = /^[A-Z]{2}/.test(name);
  return `The ${keepCase ? name : name.charAt(0).toLowerCase() + name.slice(1)}`;
}

export function hhmm(iso: string, timeZone: string): string {
  const p = localParts(Date.parse(iso), timeZone);
  return `${String(p.hour).padStart(2, "0")}:${String(p.minute).padStart(2, "0")}`;
}

/**
 * What is wrong, from when: the last contact when there was one (that is when it went quiet),
 * else when the trouble began (`began`).
 */
function quiet(kind: string, state: string, lastSeen: string | null, began: string, detail: string | undefined, tz: string): string {
  if (CONTACT_KINDS.has(kind)) {
    const verb = kind === "camera" ? "has sent nothing" : "has not been heard from";
    return lastSeen ? `${verb} since ${hhmm(lastSeen, tz)}` : `${verb} since careflow started`;
  }
  if (LINK_KINDS.has(kind)) return `has been disconnected since ${hhmm(lastSeen && lastSeen < began ? lastSeen : began, tz)}`;
  return `is ${state === "down" ? "failing" : "struggling"} since ${hhmm(began, tz)}${detail ? ` (${detail})` : ""}`;
}

/** The sentence for a part that went wrong (`back` false) or came back. */
export function partSentence(e: PartChangeEvent, back: boolean, tz: string): string {
  const who = theName(e.name);
  // A link is late from its disconnection, down only after its grace: the trouble began when it went late.
  const began = e.from === "late" ? e.previous_since : e.since;
  if (!back) return `${who} ${quiet(e.kind, e.to, e.last_seen, began, e.detail, tz)}.`;
  const was = quiet(e.kind, e.from, e.previous_last_seen, e.previous_since, undefined, tz).replace(/^has /, "had ").replace(/^is /, "was ");
  return `${who} is back since ${hhmm(e.since, tz)} (it ${was}).`;
}
