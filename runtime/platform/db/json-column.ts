/** JSON lives in text columns on both dialects; these read and write it safely. */
export const toJsonText = (value: unknown): string => JSON.stringify(value ?? null);

export function fromJsonText<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** SQLite hands booleans back as 0/1. */
export const toBool = (v: unknown): boolean => v === true || v === 1 || v === "1" || v === "true";
