/**
 * How tracking data is compared with what a caregiver typed. Names (rooms, activity types)
 * are compared by their key (`core/name-key.ts`), in JavaScript, never with SQL `lower()`.
 */
import { sameName } from "../../platform/core/name-key";

/** Equality of two names in any case or Unicode spelling, ignoring surrounding blanks. */
export const sameText = sameName;

export { agoText, atLeast, blankToNull, isoAt, minutesAgo } from "../../../nodes/_kit/values";
