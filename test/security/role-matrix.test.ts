/**
 * Every route of the app × every kind of caller, against the spec's role table. The routes
 * come from the app's own route table, so a route added later is covered without anyone
 * remembering; the expectations are the spec's table written out here, not the code's.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";
import { appRoutes, concretePath, type RouteEntry } from "../support/route-table";

type Caller = "none" | "wrong" | "admin" | "caregiver" | "mcp" | "webapp" | "camera" | "display" | "terminal";
const CALLERS: readonly Caller[] = ["none", "wrong", "admin", "caregiver", "mcp", "webapp", "camera", "display", "terminal"];

const seg = "[^/]+";
const re = (method: string, path: string) => new RegExp(`^${method} ${path}$`);

/** The spec's Authentication section (roles) and device permissions, as this project grants them. */
const SPEC_GRANTS: Record<Exclude<Caller, "none" | "wrong">, readonly RegExp[]> = {
  admin: [/^/],
  caregiver: [
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
  camera: [re("POST", "/api/v1/device/camera")],
  display: [re("GET", "/api/v1/image/active")],
  // The terminal answers the prompts it shows (docs/decisions.md).
  terminal: [re("POST", "/api/v1/device/terminal"), re("GET", "/api/v1/image/active"), re("POST", "/api/v1/interactive-responses")],
};

/**
 * Routes whose answers hold keys (the web app's set-up link and its QR code): admin keys only,
 * although caregiver and mcp_readonly may `GET /api/v1/*` (docs/decisions.md, "The web app"); and
 * the cluster's instances and leases (host names, process ids: the operator's business, docs/cluster.md).
 */
const ADMIN_ONLY = [re("GET", "/api/v1/admin/webapp-link(/.*)?"), re("GET", "/api/v1/admin/cluster")];

/**
 * Routes that take no API key at all: health, the product docs the editor's help links to,
 * the senior's web app shell (/app, /app/, /app/:file) and the caregiver's Knowledge page
 * (/knowledge/…): static files with nothing of the household in them; the app brings its key
 * to /ws, the page asks for the caregiver's (docs/webapp.md, docs/knowledge-page.md).
 */
const OPEN = [re("GET", "/health"), re("GET", "/docs(/.*)?"), re("GET", "/app(/.*)?"), re("GET", "/knowledge(/.*)?")];
/** Authenticated by something other than an API key: the rule's webhook secret. */
const SECRET_AUTH = [re("POST", `/api/v1/webhooks/:rule_id`), re("POST", "/api/v1/chat/webhook")];
/** A signed URL is its own credential (docs/media.md): without a valid signature, 403 for every caller, key or none. */
const SIGNED_URL = [re("GET", `/api/v1/media/:object_name`), re("GET", `/api/v1/media/speech/:clip_name`)];

type Expected = "open" | "allow" | 401 | 403;

function expected(route: RouteEntry, caller: Caller): Expected {
  const subject = `${route.method} ${route.path}`;
  if (OPEN.some((r) => r.test(subject))) return "open";
  if (SECRET_AUTH.some((r) => r.test(subject))) return 401; // no secret sent: every key is refused
  if (SIGNED_URL.some((r) => r.test(subject))) return 403; // no signature sent: every key is refused
  if (caller === "none" || caller === "wrong") return 401;
  if (caller !== "admin" && ADMIN_ONLY.some((r) => r.test(subject))) return 403;
  return SPEC_GRANTS[caller].some((r) => r.test(subject)) ? "allow" : 403;
}

const keyOf = (caller: Caller): string | null => (caller === "none" ? null : caller === "wrong" ? "wrong-key-0123456789" : KEYS[caller]);

describe("security: every route × every kind of caller (role matrix from the route table)", function () {
  this.timeout(120_000);
  let t: TestApp;
  let routes: RouteEntry[];
  before(async () => {
    // Wrong keys are part of the matrix: the per-address throttle must not answer for the table.
    // Continuous tracking on (its /cts routes answer instead of cts.disabled), no broker needed.
    t = await startTestApp({
      nodeRed: true,
      settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 1_000_000 } }, cts: { enabled: true, nats_url: "nats://127.0.0.1:9" } },
    });
    routes = appRoutes(t.app.server).filter((r) => r.method !== "HEAD");
  });
  after(() => t.close());

  it("reads a route table that covers the whole API", () => {
    const subjects = routes.map((r) => `${r.method} ${r.path}`);
    for (const known of [
      "GET /health",
      "POST /api/v1/rules",
      "POST /api/v1/rules/:id/execute",
      "POST /api/v1/alerts/:id/action",
      "GET /api/v1/image/active",
      "POST /api/v1/webhooks/:rule_id",
      "GET /api/v1/media/:object_name",
      "DELETE /api/v1/rooms/:id",
      "GET /api/v1/admin/webapp-link",
      "GET /api/v1/admin/webapp-link/qr.svg",
      "GET /api/v1/admin/cluster",
    ]) {
      assert.ok(subjects.includes(known), `${known} missing from the route table`);
    }
    assert.ok(routes.length > 60, `only ${routes.length} routes`);
  });

  it("answers each route as the spec's role table says, for every caller", async () => {
    const failures: string[] = [];
    for (const route of routes) {
      const path = concretePath(route.path, "999999");
      for (const caller of CALLERS) {
        const want = expected(route, caller);
        const res = await t.request(route.method, path, { key: keyOf(caller), body: route.method === "GET" || route.method === "DELETE" ? undefined : {} });
        const got = res.status;
        const ok = want === "open" || want === "allow" ? got !== 401 && got !== 403 : got === want;
        if (!ok) failures.push(`${caller} ${route.method} ${route.path}: expected ${want}, got ${got} ${res.text.slice(0, 120)}`);
        if (got >= 400 && typeof res.body?.detail !== "string") failures.push(`${caller} ${route.method} ${route.path}: ${got} without a {"detail"} body`);
        // 503 with a detail is an answer: a backing service the household runs (the hub) is absent.
        if (got >= 500 && !(got === 503 && typeof res.body?.detail === "string"))
          failures.push(`${caller} ${route.method} ${route.path}: ${got} ${res.text.slice(0, 120)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
