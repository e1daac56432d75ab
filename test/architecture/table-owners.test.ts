/**
 * Each table has one owning module (design.md, "Layout"): only the owner's files query it;
 * everyone else calls the owner's functions. This reads every TypeScript file under
 * `runtime/` and fails when a table is named as a query's table (`db("t")`, `db<T>("t")`,
 * `trx("t")`, `.from("t")`, `.table("t")`, `.into("t")`, a join of `"t"`, or `"t as x"`)
 * outside its owner. Migrations create the tables and are exempt.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const REPO = path.resolve(__dirname, "../../..");

/** Table (or view) → its owner: a folder or a file under runtime/. docs/architecture.md lists the same. */
export const OWNERS: Readonly<Record<string, string>> = {
  kv: "platform/db/kv.ts",
  careflow_versions: "platform/db/schema-upgrade.ts",
  managed_keys: "platform/auth/managed-keys.store.ts",
  audit_log: "platform/audit/audit.store.ts",
  chat_relatives: "care/services/chat/relatives.store.ts",
  chat_link_codes: "care/services/chat/relatives.store.ts",
  flow_nodes: "platform/nodered/",
  rooms: "household/rooms/",
  sensors: "household/sensors/",
  persons: "household/persons/",
  alerts: "household/alerts/",
  alert_actions: "household/alerts/",
  popup_dismissals: "household/alerts/",
  alert_history: "household/alerts/",
  person_activities: "household/activities/",
  person_locations: "household/tracking/",
  person_location_history: "household/tracking/",
  room_transitions: "household/tracking/",
  room_trends: "household/tracking/",
  dementia_signals: "household/tracking/",
  sightings: "household/tracking/sightings.store.ts",
  rules: "care/core/rules/",
  rule_steps: "care/core/rules/",
  rule_contexts: "care/core/rules/",
  rule_dependencies: "care/core/rules/",
  workflow_executions: "care/core/pipeline/engine/",
  graph_snapshots: "care/core/pipeline/engine/",
  event_logs: "care/core/events/",
  interactive_prompts: "household/prompts/prompts.store.ts",
  eink_templates: "care/services/eink/templates.store.ts",
  eink_device_states: "care/services/eink/device-states.store.ts",
  camera_media: "household/media/media.store.ts",
  ingest_batches: "household/devices/ingest-batches.store.ts",
  face_descriptors: "household/identity/descriptors.store.ts",
  face_visitors: "household/identity/descriptors.store.ts",
  mcp_calls: "care/surfaces/mcp/call-log.store.ts",
  daily_reports: "care/services/reports/daily-reports.store.ts",
  voice_turns: "household/voice-turns/voice-turns.store.ts",
  knowledge_documents: "care/services/knowledge/documents/",
  knowledge_document_images: "care/services/knowledge/documents/",
  knowledge_chunks: "care/services/knowledge/retrieval/",
  knowledge_chunk_terms: "care/services/knowledge/retrieval/",
  knowledge_queries: "care/services/knowledge/retrieval/",
  info_cards: "care/services/knowledge/cards/",
  info_card_slots: "care/services/knowledge/cards/",
  quizzes: "care/services/knowledge/quizzes/",
  quiz_questions: "care/services/knowledge/quizzes/",
  quiz_sessions: "care/services/knowledge/delivery/",
  quiz_responses: "care/services/knowledge/delivery/",
  info_card_deliveries: "care/services/knowledge/delivery/",
  input_journal: "care/core/journal/",
  cts_applied: "household/cts/",
  cts_dead_letters: "household/cts/",
  cts_frames: "household/cts/",
  cts_revised_tracks: "household/cts/",
  cluster_leases: "platform/cluster/cluster.store.ts",
  cluster_instances: "platform/cluster/cluster.store.ts",
  media_objects: "household/media/pg-objects.ts",
  occupancy_presence: "care/core/pipeline/triggers/occupancy.store.ts",
  occupancy_fires: "care/core/pipeline/triggers/occupancy.store.ts",
};

const MIGRATIONS = "platform/db/migrations/";

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.isFile() && e.name.endsWith(".ts") ? [full] : [];
  });
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The tables this source queries, once per place, by the forms named above. */
export function queriedTables(source: string, tables: readonly string[]): string[] {
  const names = tables.map(escape).join("|");
  const q = "[\"'`]";
  // db("t"), ctx.db<Row>("t"), this.db("t"), trx("t"), knex("t"), tx("t")
  const call = `\\b(?:\\w*db|trx|knex|tx)\\s*(?:<[^;"'\`()]*>)?\\s*\\(\\s*`;
  // .from("t"), .table("t"), .into("t"), .join("t", …), .leftJoin("t as x", …), …
  const method = `\\.(?:from|table|into|join|leftJoin|leftOuterJoin|rightJoin|rightOuterJoin|innerJoin|fullOuterJoin|crossJoin)\\s*\\(\\s*`;
  // …or "t as x" anywhere (an alias handed to a builder some other way)
  const re = new RegExp(`(?:(?:${call}|${method})${q}(${names})(?: as \\w+)?${q}|${q}(${names}) as \\w+${q})`, "g");
  return [...source.matchAll(re)].map((m) => m[1] ?? m[2]);
}

const owns = (owner: string, rel: string): boolean => (owner.endsWith("/") ? rel.startsWith(owner) : rel === owner);

/** `<file> queries <table> (owner <owner>)` for every query outside its owner, under `root`/runtime. */
export function offences(root: string, owners: Readonly<Record<string, string>> = OWNERS): string[] {
  const runtime = path.join(root, "runtime");
  return tsFiles(runtime).flatMap((file) => {
    const rel = path.relative(runtime, file).split(path.sep).join("/");
    if (rel.startsWith(MIGRATIONS)) return [];
    return [...new Set(queriedTables(fs.readFileSync(file, "utf8"), Object.keys(owners)))]
      .filter((t) => !owns(owners[t], rel))
      .map((t) => `runtime/${rel} queries ${t} (owner: runtime/${owners[t]})`);
  });
}

/** The tables and views the migrations create. */
function migratedTables(root: string): string[] {
  const dir = path.join(root, "runtime", MIGRATIONS);
  const names = new Set<string>();
  for (const file of tsFiles(dir)) {
    const src = fs.readFileSync(file, "utf8");
    for (const m of src.matchAll(/createTable(?:IfNotExists)?\(\s*["'`](\w+)["'`]/g)) names.add(m[1]);
    for (const m of src.matchAll(/create\s+(?:or\s+replace\s+)?view\s+(\w+)/gi)) names.add(m[1]);
  }
  return [...names].sort();
}

describe("architecture: each table has one owning module", () => {
  it("finds the query forms it checks", () => {
    const tables = ["alerts", "sensors", "rooms", "workflow_executions"];
    const source = [
      'await ctx.db("alerts").where({ id });',
      'await db<AlertRow & { x: number }>("sensors").first();',
      'await trx("rooms").insert(row);',
      'q.from("alerts");',
      'q.leftJoin("rooms", "rooms.id", "sensors.room_id");',
      'db("workflow_executions as we");',
      'const alias = "rooms as r";',
      'storedSpellings(ctx.db, "alerts", "room_name", name);', // a helper handed a table name: not a query form
      'ctx.log.info("sensors");',
      'select("rooms.name as room_name");',
    ].join("\n");
    assert.deepEqual(queriedTables(source, tables), ["alerts", "sensors", "rooms", "alerts", "rooms", "workflow_executions", "rooms"]);
  });

  it("names an owner for every table and view the migrations create", () => {
    const tables = migratedTables(REPO);
    assert.ok(tables.length > 20, `expected the tables of ${MIGRATIONS}, found ${tables.join(", ")}`);
    assert.deepEqual(
      tables.filter((t) => !(t in OWNERS)),
      [],
      "add the table to OWNERS (and to docs/architecture.md)",
    );
    for (const [table, owner] of Object.entries(OWNERS))
      assert.ok(fs.existsSync(path.join(REPO, "runtime", owner)), `owner of ${table} missing: runtime/${owner}`);
  });

  it("no file under runtime/ queries a table it does not own", () => {
    assert.deepEqual(offences(REPO), [], "call the owner's functions instead of querying its table");
  });
});
