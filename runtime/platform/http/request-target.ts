/**
 * The first middleware of the app: a request target that two parsers could read two ways
 * is refused before anything routes or authorizes it. The permission check and the router
 * then read the same path (see `auth/permission-path.ts`), and a fragment, an encoded
 * slash or a dot segment cannot make them disagree.
 *
 * Refused with 400: a `#` anywhere, a backslash, a `;` in the path, characters outside
 * printable ASCII, empty segments (`//`), `.` and `..` segments (also percent-encoded),
 * percent-encoded `/`, `\`, NUL or other control characters, and malformed
 * percent-encoding. A single trailing slash is allowed (the routers ignore it).
 */
import type http from "node:http";
import type { NextFunction, Request, Response } from "express";

/** `http://authority/path?query`: the scheme, the authority, and the rest (possibly empty). */
const ABSOLUTE_FORM = /^http:\/\/([^/?#]*)(.*)$/is;

/**
 * A request target in absolute form (`POST http://host/path`, which HTTP/1.1 servers must
 * accept, RFC 9112 3.2.2) turned into origin form before Express sees it, so every router,
 * guard and permission check reads one path. Its authority must be the Host header (or
 * there is none): then the Host rules (`/mcp`'s DNS-rebinding check among them) judge the
 * same name. Otherwise, and for other schemes or an authority with user info, the target is
 * left as it came and `requestTargetGuard` refuses it (400).
 */
export function toOriginForm(req: http.IncomingMessage): void {
  const url = req.url ?? "";
  if (url.startsWith("/")) return;
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) return;
  const [, authority, rest] = m;
  if (authority === "" || authority.includes("@")) return;
  const host = req.headers.host;
  if (host !== undefined && host.toLowerCase() !== authority.toLowerCase()) return;
  req.headers.host = authority;
  req.url = rest.startsWith("/") ? rest : `/${rest}`;
}

const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;
const ENCODED_FORBIDDEN = /%(2f|5c|[01][0-9a-f]|7f)/i;
const MALFORMED_PERCENT = /%(?![0-9a-f]{2})/i;

/** Why the target is refused, or null when it is canonical enough to route. */
export function targetProblem(target: string): string | null {
  if (!PRINTABLE_ASCII.test(target)) return "characters outside printable ASCII";
  if (target.includes("#")) return "a fragment ('#')";
  if (target.includes("\\")) return "a backslash";
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return "an absolute-form target other than http:// to the Host header's authority";
  if (!target.startsWith("/")) return "not an absolute path";
  const q = target.indexOf("?");
  const path = q === -1 ? target : target.slice(0, q);
  if (path.includes(";")) return "a ';' in the path";
  if (MALFORMED_PERCENT.test(target)) return "malformed percent-encoding";
  if (ENCODED_FORBIDDEN.test(path)) return "an encoded slash, backslash or control character in the path";
  const segments = path.slice(1).split("/");
  if (segments.length > 1 && segments[segments.length - 1] === "") segments.pop(); // one trailing slash
  for (const raw of segments) {
    if (raw === "" && path !== "/") return "an empty path segment ('//')";
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return "malformed percent-encoding";
    }
    if (seg === "." || seg === "..") return "a dot segment ('.' or '..')";
  }
  return null;
}

export function requestTargetGuard(req: Request, res: Response, next: NextFunction): void {
  const problem = targetProblem(req.url);
  if (!problem) return next();
  res.status(400).json({ detail: `request target: ${problem} is not accepted` });
}
