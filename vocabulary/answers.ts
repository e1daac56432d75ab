/** A service's answer: its value, or the reason it could not give one, in words. */

/**
 * What an external service gave: a value, or why there is none (disabled, unreachable, timed
 * out, an answer that could not be read). Perception steps degrade on the second and say why.
 */
export type ServiceAnswer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };
