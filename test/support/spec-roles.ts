/**
 * The spec's role table as the security tests expect it, written out here (not read from the
 * code): which caller may do what. The REST role matrix (every route) and the WebSocket frame
 * matrix (every client frame, by the REST twin whose permission it needs) both read it.
 */
import type { RouteEntry } from "./route-table";

export type Caller = "none" | "wrong" | "admin" | "caregiver" | "mcp" | "webapp" | "metrics" | "camera" | "display" | "terminal";
export const CALLERS: readonly Caller[] = ["none", "wrong", "admin", "caregiver", "mcp", "webapp", "metrics", "camera", "display", "terminal"];

const seg = "[^/]+";
const re = (method: string, path: string) => new RegExp(`^${method} ${path}$`);

/** The spec's Authentication section (roles) and device permissions, as this project grants them. */
const SPEC_GRANTS: Record<Exclude<Caller, "none" | "wrong">, readonly RegExp[]> = {
  admin: [/^/],
  caregiver: [
    // Every GET, the parts' states among them (GET /api/v1/admin/health/parts, docs/health.md).
    re("GET", "/api/v1/.+"),
    re("POST", `/api/v1/alerts/${seg}/action`),
    // Caregivers acknowledge dementia signals as they act on alerts (docs/tracking.md).
    re("POST", `/api/v1/cts/signals/${seg}/acknowledge`),
    // Rehearsing a rule is a read: it changes nothing outside its scratch store (docs/rehearsal.md).
    re("POST", `/api/v1/rules/${seg}/rehearse`),
    // Drafting a rule from words returns a draft and saves nothing (docs/rehearsal.md).
    re("POST", "/api/v1/rules/draft-from-words"),
    // Caregivers author knowledge; the hard delete of a whole document, card or quiz is the admin's (docs/decisions.md).
    re("(POST|PATCH)", "/api/v1/(knowledge|info-cards|quizzes)(/.+)?"),
    re("PUT", "/api/v1/(info-cards|quizzes)/.+"),
    re("DELETE", `/api/v1/(knowledge/documents/${seg}/images|info-cards/${seg}/slots|quizzes/${seg}/questions)/${seg}`),
    // A question's picture is part of the question (the role table's PUT has its DELETE).
    re("DELETE", `/api/v1/quizzes/${seg}/questions/${seg}/image`),
  ],
  mcp: [re("GET", "/api/v1/.+"), re("POST", `/api/v1/mcp/tools/${seg}`), re("POST", `/api/v1/rules/${seg}/execute`), re("(GET|POST|DELETE)", "/mcp")],
  // The senior's web app answers prompts and talks with the voice companion, nothing else (docs/decisions.md).
  webapp: [
    re("POST", "/api/v1/interactive-responses"),
    re("POST", "/api/v1/voice/sessions"),
    re("POST", "/api/v1/knowledge-interactions/quiz-sessions/[^/]+/(answers|abandon)"),
    re("POST", "/api/v1/knowledge-interactions/info-card-deliveries/[^/]+/dismiss"),
  ],
  // A Prometheus scraper reads the metrics and nothing else (issue 46 §4, docs/metrics.md).
  metrics: [re("GET", "/metrics")],
  camera: [re("POST", "/api/v1/device/camera")],
  display: [re("GET", "/api/v1/image/active")],
  // The terminal answers the prompts it shows (docs/decisions.md).
  terminal: [re("POST", "/api/v1/device/terminal"), re("GET", "/api/v1/image/active"), re("POST", "/api/v1/interactive-responses")],
};

/**
 * Routes whose answers hold keys (the web app's set-up link and its QR code): admin keys only,
 * although caregiver and mcp_readonly may `GET /api/v1/*` (docs/decisions.md, "The web app"); and
 * the cluster's instances and leases (host names, process ids: the operator's business, docs/cluster.md);
 * the keys' list and the audit log (issue 43).
 */
const ADMIN_ONLY = [
  re("GET", "/api/v1/admin/webapp-link(/.*)?"),
  re("GET", "/api/v1/admin/cluster"),
  // Who holds which key, and who changed what: the admin's (issue 43, docs/decisions.md).
  re("GET", "/api/v1/admin/(keys|audit)(/.*)?"),
  // The hub's and the tracking service's connections: the admin's (issue 43 §1).
  re("GET", "/api/v1/admin/connections(/.*)?"),
  // Backups hold the whole household: the admin's (issue 46 §2).
  re("GET", "/api/v1/admin/backups(/.*)?"),
];

/**
 * Routes that take no API key at all: health, the product docs the editor's help links to,
 * the senior's web app shell (/app, /app/, /app/:file), the caregiver's Knowledge page
 * (/knowledge/…) and the Household page (/household/…): static files with nothing of the
 * household in them; the app brings its key to /ws, the pages ask for the caregiver's or admin's
 * (docs/webapp.md, docs/knowledge-page.md, docs/household-page.md).
 */
const OPEN = [re("GET", "/health"), re("GET", "/docs(/.*)?"), re("GET", "/app(/.*)?"), re("GET", "/knowledge(/.*)?"), re("GET", "/household(/.*)?")];
/** Authenticated by something other than an API key: the rule's webhook secret. */
const SECRET_AUTH = [re("POST", `/api/v1/webhooks/:rule_id`), re("POST", "/api/v1/chat/webhook")];
/** A signed URL is its own credential (docs/media.md): without a valid signature, 403 for every caller, key or none. */
const SIGNED_URL = [re("GET", `/api/v1/media/:object_name`), re("GET", `/api/v1/media/speech/:clip_name`)];

export type Expected = "open" | "allow" | 401 | 403;

/** Routes answered at a second path: the same roles as the route they stand for (docs/decisions.md). */
const ALIASES: Record<string, string> = { "GET /admin/app-info": "GET /api/v1/admin/app-info" };

export function expected(route: RouteEntry, caller: Caller): Expected {
  const at = `${route.method} ${route.path}`;
  const subject = ALIASES[at] ?? at;
  if (OPEN.some((r) => r.test(subject))) return "open";
  if (SECRET_AUTH.some((r) => r.test(subject))) return 401; // no secret sent: every key is refused
  if (SIGNED_URL.some((r) => r.test(subject))) return 403; // no signature sent: every key is refused
  if (caller === "none" || caller === "wrong") return 401;
  if (caller !== "admin" && ADMIN_ONLY.some((r) => r.test(subject))) return 403;
  return SPEC_GRANTS[caller].some((r) => r.test(subject)) ? "allow" : 403;
}
