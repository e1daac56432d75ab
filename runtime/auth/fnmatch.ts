/**
 * Shell-style pattern matching with Python `fnmatch.fnmatchcase` semantics, because the
 * spec's permissions are fnmatch patterns: `*` matches any run of characters including
 * `/`, `?` one character, `[seq]` / `[!seq]` a character class. Case-sensitive.
 */
const cache = new Map<string, RegExp>();

const escapeChar = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

export function fnmatchToRegExp(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") {
      while (pattern[i + 1] === "*") i++;
      out += "[\\s\\S]*";
    } else if (c === "?") {
      out += "[\\s\\S]";
    } else if (c === "[") {
      let j = i + 1;
      if (pattern[j] === "!") j++;
      if (pattern[j] === "]") j++;
      while (j < pattern.length && pattern[j] !== "]") j++;
      if (j >= pattern.length) {
        out += "\\[";
      } else {
        let body = pattern.slice(i + 1, j).replace(/\\/g, "\\\\");
        if (body.startsWith("!")) body = "^" + body.slice(1);
        else if (body.startsWith("^")) body = "\\" + body;
        out += `[${body}]`;
        i = j;
      }
    } else {
      out += escapeChar(c);
    }
  }
  const re = new RegExp(`^${out}$`);
  cache.set(pattern, re);
  return re;
}

export const fnmatch = (subject: string, pattern: string): boolean => fnmatchToRegExp(pattern).test(subject);
