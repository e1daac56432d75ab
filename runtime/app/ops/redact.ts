/** Settings as an operator may see them: every secret replaced, shape kept. */
const SECRET_KEY = /(^|_)(key|api_key|secret|token|password|credential_secret)$/i;

export function redactSecrets(value: unknown, parentKey = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, parentKey));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // Header values (e.g. Authorization) are credentials whatever their name.
      if (parentKey === "headers" && typeof v === "string") out[k] = "***";
      else if (SECRET_KEY.test(k) && typeof v === "string") out[k] = "***";
      else if (typeof v === "string") out[k] = withoutPassword(v);
      else out[k] = redactSecrets(v, k);
    }
    return out;
  }
  return value;
}

/** A URL's password is a secret whatever the key is called (`media.store_url`'s secret key). */
function withoutPassword(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(text)) return text;
  try {
    const u = new URL(text);
    if (!u.password) return text;
    u.password = "***";
    return u.toString();
  } catch {
    return text;
  }
}
