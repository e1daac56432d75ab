/**
 * Permission patterns over `METHOD /path` (the spec calls them fnmatch patterns), with one
 * deliberate difference from Python's `fnmatch`: a wildcard never crosses a `/` unless it
 * stands for the rest of the path. So `POST /api/v1/rules/*\/execute` grants exactly the
 * execute route and nothing that merely ends in `/execute`.
 *
 * - a pattern that is only `*` matches everything (the admin role);
 * - a trailing `/*` matches one or more whole segments (`GET /api/v1/*` covers every GET
 *   below `/api/v1/`, at any depth);
 * - any other `*` matches within one segment (possibly empty), `?` one character that is
 *   not `/`, `[seq]` / `[!seq]` one character of a class (never `/`);
 * - matching is case-sensitive, on the path exactly as the router sees it (see
 *   `permission-path.ts`): a path whose case differs from the pattern is refused.
 */
const cache = new Map<string, RegExp>();

const escapeChar = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

const SEGMENT_CHARS = "[^/]*";
const REST_OF_PATH = "[^/]+(?:/[^/]+)*/?";

function classAt(pattern: string, i: number): { source: string; end: number } | null {
  let j = i + 1;
  if (pattern[j] === "!") j++;
  if (pattern[j] === "]") j++;
  while (j < pattern.length && pattern[j] !== "]") j++;
  if (j >= pattern.length) return null; // an unclosed class is a literal bracket
  let body = pattern.slice(i + 1, j).replace(/\\/g, "\\\\");
  if (body.startsWith("!")) body = "^/" + body.slice(1);
  else if (body.startsWith("^")) body = "\\" + body;
  const source = body.startsWith("^") ? `[${body}]` : `(?!/)[${body}]`;
  return { source, end: j };
}

export function fnmatchToRegExp(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let out = "";
  if (/^\*+$/.test(pattern)) out = "[\\s\\S]*";
  else {
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === "*") {
        while (pattern[i + 1] === "*") i++;
        const trailing = i === pattern.length - 1 && pattern[i - 1] === "/";
        out += trailing ? REST_OF_PATH : SEGMENT_CHARS;
      } else if (c === "?") {
        out += "[^/]";
      } else if (c === "[") {
        const cls = classAt(pattern, i);
        if (!cls) out += "\\[";
        else {
          out += cls.source;
          i = cls.end;
        }
      } else {
        out += escapeChar(c);
      }
    }
  }
  const re = new RegExp(`^${out}$`);
  cache.set(pattern, re);
  return re;
}

export const fnmatch = (subject: string, pattern: string): boolean => fnmatchToRegExp(pattern).test(subject);
