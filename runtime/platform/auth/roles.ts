/**
 * What each role and device permission grants, as fnmatch patterns over `METHOD /path`.
 * The role table is the spec's Authentication section, verbatim.
 */
import type { RoleName } from "../../../settings";

/** The knowledge repository's authoring routes (archive is the caregiver's delete). */
export const KNOWLEDGE_AUTHORING: readonly string[] = [
  "POST /api/v1/knowledge/*",
  "PATCH /api/v1/knowledge/*",
  "DELETE /api/v1/knowledge/documents/*/images/*",
  "POST /api/v1/info-cards",
  "POST /api/v1/info-cards/*",
  "PATCH /api/v1/info-cards/*",
  "PUT /api/v1/info-cards/*",
  "DELETE /api/v1/info-cards/*/slots/*",
  "POST /api/v1/quizzes",
  "POST /api/v1/quizzes/*",
  "PATCH /api/v1/quizzes/*",
  "PUT /api/v1/quizzes/*",
  "DELETE /api/v1/quizzes/*/questions/*",
];

/** What the senior does with cards and quizzes on the web app (its `/ws` frames need the same). */
export const SENIOR_KNOWLEDGE_WRITES: readonly string[] = [
  "POST /api/v1/knowledge-interactions/quiz-sessions/*/answers",
  "POST /api/v1/knowledge-interactions/quiz-sessions/*/abandon",
  "POST /api/v1/knowledge-interactions/info-card-deliveries/*/dismiss",
];

export const ROLE_PATTERNS: Record<RoleName, readonly string[]> = {
  admin: ["*"],
  // Caregivers author the knowledge repository (docs/decisions.md, "Knowledge: who writes"): every
  // write but the hard delete of a whole document, card or quiz, which stays with the admin.
  // They acknowledge dementia signals as they act on alerts (docs/tracking.md). Rehearsing a
  // rule changes nothing outside its scratch store: a read (docs/rehearsal.md); so is drafting a
  // rule from words, which returns a draft and saves nothing.
  caregiver: [
    "GET /api/v1/*",
    "POST /api/v1/alerts/*/action",
    "POST /api/v1/cts/signals/*/acknowledge",
    "POST /api/v1/rules/*/rehearse",
    "POST /api/v1/rules/draft-from-words",
    ...KNOWLEDGE_AUTHORING,
  ],
  mcp_readonly: ["GET /api/v1/*", "POST /api/v1/mcp/tools/*", "POST /api/v1/rules/*/execute", "POST /mcp", "GET /mcp", "DELETE /mcp"],
  // The senior's web app (not in the spec's table): it shows popups and prompts on /ws,
  // answers the prompts and talks with the voice companion, nothing else; it never needs the admin key.
  // Cards and quizzes (issue 25): it answers quiz questions, stops a quiz and puts a card away.
  webapp: ["POST /api/v1/interactive-responses", "POST /api/v1/voice/sessions", ...SENIOR_KNOWLEDGE_WRITES],
  // A Prometheus scraper (issue 46 §4): the metrics and nothing else; it holds no household data.
  metrics: ["GET /metrics"],
};

/**
 * Routes for admin keys only, whatever a key's patterns say: their answers hold keys (the web
 * app's set-up link and its QR code), which `GET /api/v1/*` (caregiver, mcp_readonly) would
 * otherwise read. Matched without regard to case, as Express routes, so another spelling of
 * the path cannot slip past.
 */
// The cluster's instances (host names, process ids) and leases are the operator's business.
// The keys' list and the audit log: who holds which key and who changed what (issue 43).
export const ADMIN_ONLY_PATTERNS: readonly string[] = [
  "GET /api/v1/admin/webapp-link",
  "GET /api/v1/admin/webapp-link/*",
  "GET /api/v1/admin/cluster",
  "GET /api/v1/admin/keys",
  "GET /api/v1/admin/keys/*",
  "GET /api/v1/admin/audit",
  "GET /api/v1/admin/audit/*",
  // The hub's and the tracking service's addresses and whether they answer (issue 43 §1).
  "GET /api/v1/admin/connections",
  "GET /api/v1/admin/connections/*",
  // A backup holds the whole household (issue 46 §2).
  "GET /api/v1/admin/backups",
  "GET /api/v1/admin/backups/*",
];

/** Named device permissions; anything else in a device's list is taken as a pattern itself. */
export const DEVICE_PERMISSION_PATTERNS: Record<string, readonly string[]> = {
  "device:camera": ["POST /api/v1/device/camera"],
  // The senior's terminal answers the prompts it shows.
  "device:terminal": ["POST /api/v1/device/terminal", "POST /api/v1/interactive-responses"],
  "image:read": ["GET /api/v1/image/active"],
};

/** Permissions a device key has when its entry lists none, by device type. */
export const DEFAULT_DEVICE_PERMISSIONS: Record<string, readonly string[]> = {
  camera_device: ["device:camera"],
  terminal: ["device:terminal", "image:read"],
  display: ["image:read"],
};

export const isRoleName = (p: string): p is RoleName => Object.prototype.hasOwnProperty.call(ROLE_PATTERNS, p);

/** Expand a key's permission list (role names or raw patterns) into patterns. */
export function expandPermissions(permissions: readonly string[]): string[] {
  return permissions.flatMap((p) => (isRoleName(p) ? ROLE_PATTERNS[p] : (DEVICE_PERMISSION_PATTERNS[p] ?? [p])));
}

/** Sensor type a device key's sensor gets when it is upserted at startup. */
export const sensorTypeForDevice = (deviceType: string): "camera" | "eink" => (deviceType === "camera_device" ? "camera" : "eink");
