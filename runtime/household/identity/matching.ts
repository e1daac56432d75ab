/**
 * Matching a face descriptor against the known ones. Confidence is `1 - distance` (Euclidean,
 * clamped to 0–1), so `recognition.threshold` 0.4 is face-api's usual same-person distance of
 * 0.6. A face is the nearest person's when that person's best descriptor is within the
 * threshold; otherwise it is `unknown`.
 */
import type { StoredDescriptor } from "./descriptors.store";

export function distance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i] - b[i];
    sum += d * d;
  }
  return Math.sqrt(sum);
}

export const confidenceOf = (dist: number): number => Math.max(0, Math.min(1, Number((1 - dist).toFixed(4))));

export interface Match {
  /** The person's or visitor's id. */
  id: string;
  confidence: number;
}

/** The best match among descriptors of one kind (`key` picks person_id or visitor_id); null when there are none. */
export function bestMatch(descriptor: readonly number[], known: readonly StoredDescriptor[], key: "person_id" | "visitor_id"): Match | null {
  let best: Match | null = null;
  for (const k of known) {
    const id = k[key];
    if (!id) continue;
    const confidence = confidenceOf(distance(descriptor, k.descriptor));
    if (!best || confidence > best.confidence) best = { id, confidence };
  }
  return best;
}
