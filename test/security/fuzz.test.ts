/**
 * A bounded fuzz of every route: malformed path ids, queries, bodies and content types,
 * mostly with the admin key so they reach the handlers. The app must answer every one
 * below 500 and every error with a JSON `{"detail": "..."}`, and still be healthy after.
 * Deterministic: `CAREFLOW_FUZZ_SEED` replays a run, `CAREFLOW_FUZZ_PER_ROUTE` sends more.
 */
import assert from "node:assert/strict";
import { prng } from "../support/prng";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";
import { deleteStreams, NATS_URL, portOpen, uniquePrefix } from "../support/nats";

const ctsPrefix = uniquePrefix("fuzz");
import { appRoutes, type RouteEntry } from "../support/route-table";
import { signedUrl, storeFrame } from "../../runtime/household/media/media.service";

const SEED = Number(process.env.CAREFLOW_FUZZ_SEED ?? 20261124);
const PER_ROUTE = Number(process.env.CAREFLOW_FUZZ_PER_ROUTE ?? 26);

const PATH_VALUES = [
  "0",
  "-1",
  "1.5",
  "99999999999999999999",
  "2147483648", // beyond PostgreSQL's integer: 404, not a 500 (issue 51 item 6)
  "abc",
  "%00",
  "%C3%A9",
  "%FF",
  "a".repeat(3000),
  "%27%20OR%201%3D1",
  "null",
  "__proto__",
  "constructor",
  "1e3",
  "%201",
  "%F0%9F%98%80",
  "1",
  "2",
  "rose",
  "kitchen",
  "%2e%2e",
  "enrolled",
  "..%2F..%2Fsettings.yaml",
  "%2e%2e%2f%2e%2e%2fcareflow.sqlite",
  `${"0".repeat(64)}.jpg`,
];
const QUERY_KEYS = [
  "limit",
  "offset",
  "status",
  "sensor_type",
  "rule_id",
  "since",
  "until",
  "room",
  "room_id",
  "format",
  "sensor_id",
  "person_id",
  "level",
  "date",
  "acknowledged",
  "type",
  "q",
  "api_key",
  "page",
  "hours",
  "expires",
  "sig",
  // Knowledge (issue 25)
  "tag",
  "answered_via",
  "applies_to",
  "document_id",
  // /cts/signals
  "kind",
];
const QUERY_VALUES = [
  "",
  "-1",
  "0",
  "abc",
  "%00",
  "1e999",
  "99999999999999999999",
  "2147483648",
  "2026-13-45",
  "true",
  "%FF",
  "x".repeat(5000),
  "%E2%80%AE",
  "null",
  "[]",
  "1,2",
  "yaml",
  "kitchen_cam",
];
const FIELDS = [
  // POST /rules/{id}/rehearse
  "from",
  "to",
  "draft",
  "call_models",
  // POST /rules/draft-from-words
  "sentence",
  // The knowledge documents and questions.
  "title",
  "source_text",
  "tags",
  "alt_text",
  "ord",
  "query",
  "image_descriptions",
  // knowledge delivery (quiz answers)
  "question_ord",
  "choice_id",
  "open_ended_text",
  // /cts/signals/{id}/acknowledge
  "feedback",
  // POST /chat/link-codes, PATCH /chat/relatives/{chat_id} (name is below)
  "alert_levels",
  // POST /admin/starter-rules (person_id is above)
  "rules",
  "sensors",
  // POST /admin/keys (name and sensor_id are below)
  "kind",
  "role",
  "device_type",
  "name",
  "floor",
  "sensor_id",
  "sensor_type",
  "room_id",
  "room_name",
  "config_json",
  "trigger_type",
  "enabled",
  "cron_expression",
  "cool_off_minutes",
  "max_daily_triggers",
  // a cts_window rule's window
  "cts_window_config",
  "duration_s",
  "min_identities",
  // a system_health rule's parts and changes
  "system_health_config",
  "part_kinds",
  "changes",
  "min_minutes",
  "step_type",
  "label",
  "position",
  "from_step_id",
  "to_step_id",
  "from_port",
  "edges",
  "context_type",
  "negate",
  "depends_on_rule_id",
  "action",
  "execution_id",
  "step_id",
  "channel",
  "raw_response",
  "regions",
  "template_id",
  "expires_in_minutes",
  "targets",
  "person_id",
  "display_name",
  "language",
  "alert_config",
  "level",
  "description",
  "format",
  "rules",
  "status",
  "notes",
  "device_key",
  "step_ids",
  "positions",
  "steps",
  "version",
  "id",
  "sensor_ids",
  // Device input (camera payload, terminal)
  "data",
  "image",
  "labels",
  "boxes",
  "resolution",
  "button",
  "command",
  "args",
  "alert_id",
  // Knowledge cards and quizzes (issue 25)
  "layout_id",
  "title",
  "body_text",
  "voice_instruction",
  "tags",
  "document_id",
  "alt_text",
  "crop_hints",
  "document_image_id",
  "question_layout_id",
  "intro_voice_template",
  "question_type",
  "question_text",
  "choices",
  "expected_answer",
  "explanation",
  "items",
  "question_count",
  "quiz_id",
  "questions",
  // The hub's and the tracking broker's connections (issue 43 §1)
  "url",
  "token",
  "nats_url",
];

describe("security: bounded fuzz of every route", function () {
  this.timeout(300_000);
  let t: TestApp;
  let routes: RouteEntry[];
  const rand = prng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const chance = (p: number): boolean => rand() < p;

  const junk = (depth = 0): unknown => {
    const kinds = depth > 3 ? 9 : 12;
    switch (Math.floor(rand() * kinds)) {
      case 0:
        return null;
      case 1:
        return pick([-1, 0, 1, 2.5, 1e308, -1e308, 2 ** 53 + 1]);
      case 2:
        return pick([
          "",
          "x".repeat(20_000),
          "\u202e\u0301",
          "💥",
          "1; DROP TABLE rooms",
          "{{system.local_time}}",
          "<script>",
          "not valid and (",
          "0 0 * * *",
          "Küche",
          // Addresses where nothing answers: a connection test refused quickly, never a 500.
          "http://127.0.0.1:9",
          "nats://127.0.0.1:9",
        ]);
      case 3:
        return pick([true, false]);
      case 4:
        return [];
      case 5:
        return {};
      case 6:
        return JSON.parse('{"__proto__": {"polluted": true}}');
      case 7:
        return "2026-02-30T25:61:00Z";
      case 8:
        return pick(["1", "abc", "null", "true"]);
      case 9:
        return Array.from({ length: 1 + Math.floor(rand() * 4) }, () => junk(depth + 1));
      case 10:
        return Object.fromEntries(Array.from({ length: 1 + Math.floor(rand() * 4) }, () => [pick(FIELDS), junk(depth + 1)]));
      default:
        return Array.from({ length: 5000 }, (_, i) => i);
    }
  };

  const body = (): { raw?: string; json?: unknown; type?: string } => {
    const r = rand();
    if (r < 0.12) return { raw: pick(["{", "[1,", "nul", '"str"', "123", "true", "null", '{"a":}', "\u0000", "{}}", ""]), type: "application/json" };
    if (r < 0.17) return { raw: "[".repeat(3000) + "]".repeat(3000), type: "application/json" };
    if (r < 0.22) return { raw: pick(["name: [unclosed", "- a\n- b", "rules: 5", "!!js/function x", "a: &x [*x]"]), type: "application/yaml" };
    if (r < 0.26)
      return {
        raw: pick([
          '--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\nnotapng\r\n--x--',
          // A document's text as a file that is not text (UTF-16 with a NUL).
          '--x\r\nContent-Disposition: form-data; name="source_file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n\u00ff\u00feA\u0000\r\n--x--',
        ]),
        type: "multipart/form-data; boundary=x",
      };
    if (r < 0.29) return { raw: "name=a&floor=b", type: "application/x-www-form-urlencoded" };
    if (r < 0.32) return { raw: '{"name":"x"}', type: pick(["text/plain", "application/json; charset=utf-16", "application/octet-stream"]) };
    const obj = Object.fromEntries(Array.from({ length: 1 + Math.floor(rand() * 6) }, () => [pick(FIELDS), junk()]));
    return { json: chance(0.1) ? junk() : obj };
  };

  const query = (): string => {
    if (!chance(0.5)) return "";
    const parts = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
      const k = pick(QUERY_KEYS);
      return chance(0.1) ? `${k}[a][b]=${pick(QUERY_VALUES)}` : `${k}=${pick(QUERY_VALUES)}`;
    });
    return "?" + parts.join("&");
  };

  before(async () => {
    // Continuous tracking on (its /cts routes answer instead of cts.disabled), on the machine's
    // broker when there is one: the health check at the end wants the link up.
    const cts = (await portOpen(NATS_URL)) ? { enabled: true, nats_url: NATS_URL, stream_prefix: ctsPrefix } : {};
    // A family chat (chat id 1) for the relatives' routes to hit; no bot token: nothing is sent.
    const notifications = { chat_app: { targets: [{ name: "Fuzz relative", chat_id: 1, alert_levels: [] }] } };
    t = await startTestApp({ nodeRed: true, settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 1_000_000 } }, cts, notifications } });
    routes = appRoutes(t.app.server).filter((r) => r.method !== "HEAD");
    // Real objects for the ids to hit now and then.
    await t.post("/api/v1/rooms", { name: "kitchen" });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    const rule = (await t.post("/api/v1/rules", { name: "Fuzz target", trigger_type: "manual" })).body.id;
    await t.post(`/api/v1/rules/${rule}/steps`, { step_type: "wait", label: "wait_1", config_json: { seconds: 1 } });
    // A managed key (id 1) for the rotate and revoke routes to hit.
    await t.post("/api/v1/admin/keys", { name: "fuzz key", kind: "api", role: "caregiver" });
    // A stored frame: its object name for the media route's path, its signature and expiry for any query.
    const frame = await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) });
    const signed = new URL(await signedUrl(t.app.ctx, frame.media_id), t.baseUrl).searchParams;
    PATH_VALUES.push(frame.object_name);
    QUERY_VALUES.push(signed.get("sig")!, signed.get("expires")!);
  });
  after(async () => {
    await t.close();
    if (t.app.ctx.settings.cts.enabled) await deleteStreams(NATS_URL, ctsPrefix);
  });

  it(`answers ${PER_ROUTE} malformed requests per route below 500, every error with {"detail"} (seed ${SEED})`, async () => {
    const failures: string[] = [];
    let sent = 0;
    const statuses = new Map<number, number>();
    for (const route of routes) {
      for (let i = 0; i < PER_ROUTE; i++) {
        const path = route.path.replace(/:(\w+)/g, () => pick(PATH_VALUES)) + query();
        const key = chance(0.85) ? KEYS.admin : pick([KEYS.caregiver, KEYS.mcp, KEYS.camera, null, "wrong-key-0123456789"]);
        const b = route.method === "GET" ? {} : route.method === "DELETE" && !chance(0.1) ? {} : body();
        const headers: Record<string, string> = {};
        if (b.type) headers["content-type"] = b.type;
        const raw = b.raw ?? (b.json !== undefined ? JSON.stringify(b.json) : undefined);
        if (raw !== undefined && !b.type) headers["content-type"] = "application/json";
        const res = await t.request(route.method, path, { key, rawBody: raw, headers });
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const where = `${route.method} ${path.slice(0, 160)} [${raw?.slice(0, 120) ?? ""}]`;
        // 503 with a detail is an answer: a backing service the household runs (the hub) is absent.
        if (res.status >= 500 && !(res.status === 503 && typeof res.body?.detail === "string"))
          failures.push(`${res.status} ${where}: ${res.text.slice(0, 160)}`);
        else if (res.status >= 400 && typeof res.body?.detail !== "string")
          failures.push(`${res.status} without {"detail"}: ${where}: ${res.text.slice(0, 100)}`);
      }
    }
    if (process.env.CAREFLOW_FUZZ_VERBOSE)
      console.log(
        [...statuses]
          .sort((a, b) => a[0] - b[0])
          .map(([s, n]) => `${s}×${n}`)
          .join(" "),
      );
    assert.ok(sent >= 2000, `only ${sent} requests`);
    assert.deepEqual(failures, []);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted");
    assert.equal((await t.get("/health", null)).status, 200);
  });
});
