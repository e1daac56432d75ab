/**
 * Which REST writes the audit log records (issue 43 §2: people, rooms, devices, rules,
 * knowledge; keys record themselves in app/keys), and how each reads: the kind of thing, the
 * action, the thing's id. A write below a thing (a rule's step, a person's enrollment, a card's
 * approval) is an update of that thing. Asking for a suggestion, a rehearsal, a run or a
 * preview changes nothing and is not recorded.
 */
import type { AuditAction } from "../../platform/audit/audit.store";

/** The first path segments (under /api/v1) of the audited things, what the log calls each, and the field of a new one's id in its answer. */
const ROOTS: ReadonlyArray<[RegExp, string, string]> = [
  [/^\/persons(?:\/|$)/, "person", "person_id"],
  [/^\/rooms(?:\/|$)/, "room", "id"],
  [/^\/sensors(?:\/|$)/, "sensor", "sensor_id"],
  [/^\/rules(?:\/|$)/, "rule", "id"],
  [/^\/knowledge\/documents(?:\/|$)/, "knowledge document", "id"],
  [/^\/info-cards(?:\/|$)/, "info card", "id"],
  [/^\/quizzes(?:\/|$)/, "quiz", "id"],
];

/** Writes that change nothing stored (or only derived data). */
const NOT_CHANGES: readonly RegExp[] = [
  /^\/rules\/draft-from-words$/,
  /^\/rules\/import\/preview$/,
  /^\/rules\/[^/]+\/(execute|rehearse|validate)$/,
  /^\/(info-cards|quizzes)\/suggest$/,
  /^\/quizzes\/voice-instruction-suggest$/,
  /^\/knowledge\/documents\/[^/]+\/reembed$/,
];

/** Imports from the hub: rooms or sensors made or renamed, many at once. */
const HUB_SYNC = /^\/ha\/sync\/(rooms|sensors)$/;

export interface AuditedWrite {
  action: AuditAction;
  target_type: string;
  /** The thing's id from the path; null: a new thing (its id comes from the answer) or many. */
  target_id: string | null;
  /** The field of the answer that holds a new thing's id. */
  id_field?: string;
  /** A write below the thing (a rule's step): the answer and body are the part's, not the thing's name. */
  nested?: boolean;
  /** Many things at once (a hub import): no single id to read from the answer. */
  many?: string;
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** What a write to `path` (below /api/v1, as routed) records, or null for none. */
export function auditedWrite(method: string, path: string): AuditedWrite | null {
  if (!MUTATING.has(method)) return null;
  const hub = HUB_SYNC.exec(path);
  if (hub) return { action: "update", target_type: hub[1] === "rooms" ? "room" : "sensor", target_id: null, many: "import from the hub" };
  // The hub's address and token set on the Household page (never the token itself in the log).
  if (method === "PUT" && path === "/admin/connections/hub")
    return { action: "update", target_type: "hub connection", target_id: null, many: "address and token" };
  if (NOT_CHANGES.some((r) => r.test(path))) return null;
  const root = ROOTS.find(([r]) => r.test(path));
  if (!root) return null;
  const [re, target_type, id_field] = root;
  const rest = path.replace(re, "").split("/").filter(Boolean);
  if (rest.length === 0 || (target_type === "rule" && rest.length === 1 && rest[0] === "import"))
    return method === "POST"
      ? { action: "create", target_type, target_id: null, id_field: target_type === "rule" && rest.length ? "rule_id" : id_field }
      : null;
  const target_id = decode(rest[0]);
  if (rest.length === 1) return { action: method === "DELETE" ? "delete" : "update", target_type, target_id };
  return { action: "update", target_type, target_id, nested: true };
}
