/**
 * The MCP server through the official SDK's client over streamable HTTP: every tool listed
 * and called on a fresh household and on the demo household, the auth answers, the Origin and
 * Host checks, the allow-lists (mcp.tools, mcp.voice_tools), the REST mirror's parity with
 * tools/call, the write permissions of each kind of key, first-answer-wins on prompts, and
 * the call log.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { createApp } from "../../../../../runtime/app/app";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";
import { connectMcp, type Client } from "./mcp-client";

const ALL_TOOLS = [
  "get_rooms",
  "get_sensors",
  "get_room_occupancy",
  "get_recent_images",
  "get_light_level",
  "get_weather",
  "get_local_datetime",
  "get_person_locations",
  "get_enrolled_persons",
  "get_person_sightings",
  "get_person_activities",
  "get_conversation_history",
  "get_alerts",
  "get_event_logs",
  "get_rules",
  "get_workflow_executions",
  "get_rule_pipeline",
  "trigger_rule",
  "get_eink_display_status",
  "respond_to_interactive_prompt",
  "get_rule_bundle",
  "import_rule_bundle",
  "get_daily_report",
  "get_person_timeline",
  "get_open_sessions",
  "query_knowledge_base",
  "get_current_quiz_question",
  "submit_quiz_answer",
  "complete_quiz_session",
];
/** Capabilities this test household does not have: a tool error that says so. */
const NOT_CONFIGURED: Record<string, RegExp> = {
  get_weather: /hub is not set up/,
  get_light_level: /hub is not set up/,
  // No quiz is going on in these households (quiz.tools.test.ts runs whole quizzes).
  get_current_quiz_question: /No quiz session is open/,
  submit_quiz_answer: /session_id/,
  complete_quiz_session: /session_id/,
};

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const MCP_ACCEPT = { accept: "application/json, text/event-stream", "content-type": "application/json" };

type Result = { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) => (await c.callTool({ name, arguments: args })) as Result;
const valueOf = (r: Result) => JSON.parse(r.content[0].text) as any;

/** Raw HTTP, to send a Host header of our choosing. */
function rawPost(port: number, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/mcp", headers }, (res) => {
      let text = "";
      res.on("data", (d) => (text += String(d)));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text.startsWith("{") ? JSON.parse(text) : text }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** Arguments for every tool, from what the household holds. */
async function argumentsFor(c: Client): Promise<Record<string, Record<string, unknown>>> {
  const rules = valueOf(await call(c, "get_rules", { enabled_only: false })) as Array<{ id: number }>;
  const sensors = valueOf(await call(c, "get_sensors")) as Array<{ id: string; sensor_type: string }>;
  const persons = valueOf(await call(c, "get_person_locations")) as Array<{ person_id: string }>;
  const ruleId = rules[0]?.id ?? 1;
  const camera = sensors.find((s) => s.sensor_type === "camera")?.id ?? "kitchen_cam";
  const person = persons[0]?.person_id ?? "rose";
  return {
    get_sensors: { sensor_type: "camera" },
    get_recent_images: { sensor_id: camera },
    get_light_level: { entity_id: "sensor.kitchen_illuminance" },
    get_person_sightings: { person_id: person },
    get_person_activities: { person_id: person },
    get_person_timeline: { person_id: person, minutes: 120 },
    get_daily_report: { person_id: person },
    get_rule_pipeline: { rule_id: ruleId },
    trigger_rule: { rule_id: ruleId },
    respond_to_interactive_prompt: { execution_id: 999999, step_id: 1, action: "dismiss" },
    get_rule_bundle: { rule_id: ruleId },
    import_rule_bundle: { bundle: { schema_version: 1, rule: { name: "From an agent", trigger_type: "manual" }, steps: [] } },
    query_knowledge_base: { query: "How does the heater work?" },
  };
}

describe("MCP server (official SDK client over streamable HTTP)", function () {
  this.timeout(120_000);

  for (const household of ["fresh", "demo"] as const) {
    describe(`the ${household} household`, () => {
      let t: TestApp;
      let client: Client;
      before(async () => {
        t = await startTestApp({ nodeRed: true, demo: household === "demo" });
        if (household === "fresh") {
          // A rule and a member, so every tool has something to name.
          const rule = await t.post("/api/v1/rules", { name: "Kitchen check", trigger_type: "manual" });
          assert.equal(rule.status, 201, rule.text);
          const person = await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
          assert.ok(person.status < 300, person.text);
        }
        client = await connectMcp(t.baseUrl, KEYS.admin);
      });
      after(async () => {
        await client.close();
        await t.close();
      });

      it("lists every tool with input and output JSON Schemas", async () => {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((x) => x.name).sort(), [...ALL_TOOLS].sort());
        for (const tool of tools) {
          assert.equal(tool.inputSchema.type, "object", tool.name);
          assert.equal(tool.outputSchema?.type, "object", tool.name);
          assert.ok(tool.description && tool.description.length > 10, tool.name);
        }
        const sightings = tools.find((x) => x.name === "get_person_sightings")!;
        assert.deepEqual(sightings.inputSchema.required, ["person_id"]);
        assert.equal((sightings.inputSchema.properties as any).limit.default, 10);
        assert.equal(tools.find((x) => x.name === "trigger_rule")!.annotations?.destructiveHint, true);
      });

      it("calls every tool: a value matching its output schema, or a clear tool error", async () => {
        const args = await argumentsFor(client);
        for (const name of ALL_TOOLS) {
          const r = await call(client, name, args[name] ?? {});
          const text = r.content[0].text;
          if (NOT_CONFIGURED[name]) {
            assert.equal(r.isError, true, `${name}: ${text}`);
            assert.match(valueOf(r).error, NOT_CONFIGURED[name], name);
          } else if (name === "respond_to_interactive_prompt") {
            assert.equal(r.isError, true, text);
            assert.match(valueOf(r).error, /Execution 999999 not found/);
          } else {
            // The SDK's client has checked structuredContent against the tool's output schema.
            assert.notEqual(r.isError, true, `${name}: ${text}`);
            assert.ok(r.structuredContent, name);
          }
        }
      });

      it("answers with the reference's defaults and shapes", async () => {
        const rooms = valueOf(await call(client, "get_rooms"));
        if (household === "demo") {
          assert.ok(rooms.length >= 5);
          assert.deepEqual(Object.keys(rooms[0]).sort(), ["floor", "ha_area_id", "id", "name"]);
          const loc = valueOf(await call(client, "get_person_locations"));
          assert.equal(loc[0].person_id, "rose");
        }
        const time = valueOf(await call(client, "get_local_datetime"));
        assert.deepEqual(Object.keys(time).sort(), ["date", "datetime", "day_of_week", "time", "timezone"]);
        const missing = await call(client, "trigger_rule", { rule_id: 987654 });
        assert.equal(missing.isError, true);
        assert.deepEqual(valueOf(missing), { error: "Rule 987654 not found" });
        const report = valueOf(await call(client, "get_daily_report", { person_id: "rose" }));
        assert.equal(report.length, 1);
        assert.equal(report[0].person_id, "rose");
        assert.equal(typeof report[0].date, "string");
        assert.ok("meals" in report[0] && "medication" in report[0] && "sleep" in report[0] && "alerts" in report[0]);
        assert.ok(Array.isArray(valueOf(await call(client, "get_open_sessions"))));
        const unknown = await call(client, "get_person_timeline", { person_id: "nobody_here" });
        assert.equal(unknown.isError, true);
        const bad = await call(client, "get_person_sightings", { limit: 5 });
        assert.equal(bad.isError, true);
        assert.match(valueOf(bad).error, /person_id/);
      });
    });
  }

  describe("auth, origin, allow-lists, the REST mirror, permissions, the call log", () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({
        nodeRed: true,
        settings: {
          auth: {
            ...testAuthSettings(),
            api_keys: [
              ...testAuthSettings().api_keys!,
              // A caregiver-level agent: reads everything, may use /mcp, writes nothing.
              { key: "caregiver-agent-key-01", name: "caregiver agent", permissions: ["caregiver", "POST /mcp", "GET /mcp", "DELETE /mcp"] },
            ],
          },
          mcp: { allowed_origins: ["http://tablet.local:3000"] },
        },
      });
    });
    after(() => t.close());

    it("answers 401 without a key or with an unknown one, 403 to a key without /mcp, and takes the key three ways", async () => {
      const post = (headers: Record<string, string>, query = "") =>
        fetch(`${t.baseUrl}/mcp${query}`, { method: "POST", headers: { ...MCP_ACCEPT, ...headers }, body: JSON.stringify(INIT) });
      for (const [headers, query, status] of [
        [{}, "", 401],
        [{ "x-api-key": "not-a-key-at-all" }, "", 401],
        [{ authorization: "Bearer not-a-key-at-all" }, "", 401],
        [{ "x-api-key": KEYS.caregiver }, "", 403],
        [{ "x-api-key": KEYS.webapp }, "", 403],
        [{ "x-api-key": KEYS.camera }, "", 403],
      ] as const) {
        const res = await post(headers, query);
        assert.equal(res.status, status, JSON.stringify(headers));
        assert.equal(typeof ((await res.json()) as any).detail, "string");
      }
      for (const via of ["header", "bearer", "query"] as const) {
        const c = await connectMcp(t.baseUrl, KEYS.mcp, { via });
        assert.ok((await c.listTools()).tools.length > 0, via);
        await c.close();
      }
      await assert.rejects(connectMcp(t.baseUrl, "wrong-key-0123456789"), /401|Invalid API key|Unauthorized/);
    });

    it("refuses a foreign Origin or Host (DNS rebinding) and allows mcp.allowed_origins", async () => {
      const port = Number(new URL(t.baseUrl).port);
      const headers = { ...MCP_ACCEPT, "x-api-key": KEYS.admin };
      const evil = await rawPost(port, { ...headers, origin: "http://evil.example" }, INIT);
      assert.equal(evil.status, 403);
      assert.match(evil.body.detail, /Origin 'http:\/\/evil.example' is not allowed/);
      const rebound = await rawPost(port, { ...headers, host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, INIT);
      assert.equal(rebound.status, 403);
      assert.match(rebound.body.detail, /Host 'evil.example:\d+' is not allowed/);
      assert.equal((await rawPost(port, { ...headers, origin: "http://tablet.local:3000" }, INIT)).status, 200);
      assert.equal((await rawPost(port, { ...headers, host: `localhost:${port}` }, INIT)).status, 200);
      assert.equal((await rawPost(port, { ...headers, origin: `http://127.0.0.1:${port}` }, INIT)).status, 200);
    });

    it("keeps a session to the key that opened it and ends it on DELETE", async () => {
      const res = await fetch(`${t.baseUrl}/mcp`, { method: "POST", headers: { ...MCP_ACCEPT, "x-api-key": KEYS.admin }, body: JSON.stringify(INIT) });
      const sid = res.headers.get("mcp-session-id")!;
      assert.ok(sid);
      await res.text();
      const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
      const other = await fetch(`${t.baseUrl}/mcp`, {
        method: "POST",
        headers: { ...MCP_ACCEPT, "x-api-key": KEYS.mcp, "mcp-session-id": sid },
        body: JSON.stringify(list),
      });
      assert.equal(other.status, 404);
      const del = await fetch(`${t.baseUrl}/mcp`, { method: "DELETE", headers: { "x-api-key": KEYS.admin, "mcp-session-id": sid } });
      assert.equal(del.status, 200);
      const after = await fetch(`${t.baseUrl}/mcp`, {
        method: "POST",
        headers: { ...MCP_ACCEPT, "x-api-key": KEYS.admin, "mcp-session-id": sid },
        body: JSON.stringify(list),
      });
      assert.equal(after.status, 404);
      assert.equal(typeof ((await after.json()) as any).detail, "string");
    });

    it("gives the REST mirror the same results and errors as tools/call", async () => {
      const c = await connectMcp(t.baseUrl, KEYS.mcp);
      const listed = await t.request("GET", "/api/v1/mcp/tools", { key: KEYS.mcp });
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.tools, JSON.parse(JSON.stringify((await c.listTools()).tools)));
      await t.post("/api/v1/rules", { name: "Parity", trigger_type: "manual" });
      for (const [name, args] of [
        ["get_rooms", {}],
        ["get_rules", { enabled_only: false }],
        ["get_alerts", { limit: 5 }],
        ["get_eink_display_status", {}],
        ["get_weather", {}],
        ["get_rule_pipeline", { rule_id: 424242 }],
        ["get_sensors", { sensor_type: "not-a-type" }],
      ] as const) {
        const viaMcp = await call(c, name, args);
        const viaRest = await t.request("POST", `/api/v1/mcp/tools/${name}`, { key: KEYS.mcp, body: args });
        if (viaMcp.isError) {
          assert.ok(viaRest.status >= 400, name);
          assert.equal(viaRest.body.detail, valueOf(viaMcp).error, name);
        } else {
          assert.equal(viaRest.status, 200, name);
          assert.deepEqual(viaRest.body, valueOf(viaMcp), name);
        }
      }
      assert.equal((await t.request("POST", "/api/v1/mcp/tools/get_weather", { key: KEYS.mcp, body: {} })).status, 503);
      assert.equal((await t.request("POST", "/api/v1/mcp/tools/get_rule_pipeline", { key: KEYS.mcp, body: { rule_id: 424242 } })).status, 404);
      assert.equal((await t.request("POST", "/api/v1/mcp/tools/get_sensors", { key: KEYS.mcp, body: { sensor_type: 1 } })).status, 422);
      assert.equal((await t.request("POST", "/api/v1/mcp/tools/no_such_tool", { key: KEYS.mcp, body: {} })).status, 404);
      await assert.rejects(c.callTool({ name: "no_such_tool", arguments: {} }), /Unknown tool: no_such_tool/);
      await c.close();
    });

    it("lets each kind of key write only what its REST twin allows", async () => {
      const rule = await t.post("/api/v1/rules", { name: "Writable", trigger_type: "manual" });
      const bundle = { schema_version: 1, rule: { name: "Agent import", trigger_type: "manual" }, steps: [] };
      const caregiver = await connectMcp(t.baseUrl, "caregiver-agent-key-01");
      const mcp = await connectMcp(t.baseUrl, KEYS.mcp);
      const admin = await connectMcp(t.baseUrl, KEYS.admin);
      // The caregiver-level agent reads, and writes nothing.
      assert.notEqual((await call(caregiver, "get_rules")).isError, true);
      for (const [name, args] of [
        ["trigger_rule", { rule_id: rule.body.id }],
        ["import_rule_bundle", { bundle, mode: "commit" }],
        ["respond_to_interactive_prompt", { execution_id: 1, step_id: 1, action: "dismiss" }],
      ] as const) {
        const r = await call(caregiver, name, args);
        assert.equal(r.isError, true, name);
        assert.match(valueOf(r).error, /Permission denied: 'caregiver agent' may not use/, name);
      }
      // mcp_readonly runs rules (the spec grants POST /rules/*/execute) and previews imports, nothing more.
      const run = await call(mcp, "trigger_rule", { rule_id: rule.body.id });
      assert.notEqual(run.isError, true, run.content[0].text);
      assert.equal(typeof valueOf(run).execution_id, "number");
      assert.equal(valueOf(await call(mcp, "import_rule_bundle", { bundle })).status, "ok");
      assert.match(valueOf(await call(mcp, "import_rule_bundle", { bundle, mode: "commit" })).error, /needs POST \/api\/v1\/rules\/import/);
      assert.match(valueOf(await call(mcp, "respond_to_interactive_prompt", { execution_id: 1, step_id: 1, action: "dismiss" })).error, /Permission denied/);
      // The admin imports, from YAML text too.
      const imported = await call(admin, "import_rule_bundle", {
        bundle: "schema_version: 1\nrule: {name: YAML import, trigger_type: manual}\nsteps: []\n",
        mode: "commit",
      });
      assert.notEqual(imported.isError, true, imported.content[0].text);
      assert.equal(typeof valueOf(imported).rule_id, "number");
      for (const c of [caregiver, mcp, admin]) await c.close();
    });

    it("answers a prompt through the same first-answer-wins path as REST", async () => {
      const imported = await t.post("/api/v1/rules/import", {
        schema_version: 1,
        rule: { name: "Ask by voice", trigger_type: "manual" },
        steps: [{ label: "ask", step_type: "interactive_prompt", schema_version: 1, config: {} }],
      });
      assert.equal(imported.status, 201, imported.text);
      const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
      await eventually("the run to wait", async () => ((await t.get(`/api/v1/workflows/${exec}`)).body.status === "waiting" ? true : undefined));
      const admin = await connectMcp(t.baseUrl, KEYS.admin);
      const steps = valueOf(await call(admin, "get_rule_pipeline", { rule_id: imported.body.rule_id }));
      const stepId = steps[0].id as number;
      const first = valueOf(await call(admin, "respond_to_interactive_prompt", { execution_id: exec, step_id: stepId, action: "escalate" }));
      assert.equal(first.success, true);
      assert.equal(first.action, "escalate");
      const second = valueOf(await call(admin, "respond_to_interactive_prompt", { execution_id: exec, step_id: stepId, action: "dismiss" }));
      assert.equal(second.action, "escalate", JSON.stringify(second));
      const viaRest = await t.post("/api/v1/interactive-responses", { execution_id: exec, step_id: stepId, channel: "pwa_popup_text", action: "dismiss" });
      assert.equal(viaRest.body.action, "escalate");
      await admin.close();
    });

    it("records every call for the family to see", async () => {
      const c = await connectMcp(t.baseUrl, KEYS.mcp);
      await call(c, "get_rooms");
      await call(c, "trigger_rule", { rule_id: 777777 });
      await c.close();
      const calls = await t.get("/api/v1/mcp/calls?caller=test%20mcp&limit=500");
      assert.equal(calls.status, 200);
      const rooms = calls.body.find((x: any) => x.tool === "get_rooms" && x.transport === "mcp");
      assert.ok(rooms, JSON.stringify(calls.body.slice(0, 3)));
      assert.equal(rooms.outcome, "ok");
      assert.equal(typeof rooms.duration_ms, "number");
      assert.ok(rooms.session_id);
      const failed = calls.body.find((x: any) => x.tool === "trigger_rule" && x.arguments.rule_id === 777777);
      assert.equal(failed.outcome, "error");
      assert.equal(failed.error, "Rule 777777 not found");
      assert.ok(calls.body.some((x: any) => x.transport === "rest"));
      assert.ok(calls.body.some((x: any) => x.outcome === "refused"));
    });
  });

  describe("mcp.tools and mcp.voice_tools", () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({ settings: { mcp: { tools: ["get_rooms", "get_alerts", "trigger_rule", "get_daily_report"] } } });
    });
    after(() => t.close());

    it("registers only mcp.tools: others are not listed and refused", async () => {
      const c = await connectMcp(t.baseUrl, KEYS.admin);
      assert.deepEqual(
        (await c.listTools()).tools.map((x) => x.name),
        ["get_rooms", "get_alerts", "trigger_rule", "get_daily_report"],
      );
      await assert.rejects(c.callTool({ name: "get_sensors", arguments: {} }), /Unknown tool: get_sensors/);
      assert.equal((await t.post("/api/v1/mcp/tools/get_sensors", {})).status, 404);
      await c.close();
    });

    it("serves the voice subset (?tools=voice) without destructive tools unless listed", async () => {
      const voice = await connectMcp(t.baseUrl, KEYS.admin, { query: "tools=voice" });
      assert.deepEqual(
        (await voice.listTools()).tools.map((x) => x.name),
        ["get_rooms", "get_alerts"],
      );
      await assert.rejects(voice.callTool({ name: "trigger_rule", arguments: { rule_id: 1 } }), /Unknown tool: trigger_rule/);
      assert.notEqual(((await voice.callTool({ name: "get_rooms", arguments: {} })) as Result).isError, true);
      await voice.close();
      assert.deepEqual(
        (await t.get("/api/v1/mcp/tools?set=voice")).body.tools.map((x: any) => x.name),
        ["get_rooms", "get_alerts"],
      );
      assert.equal((await t.post("/api/v1/mcp/tools/trigger_rule?set=voice", { rule_id: 1 })).status, 404);

      const listed = await startTestApp({ settings: { mcp: { voice_tools: ["get_rooms", "trigger_rule"] } } });
      try {
        assert.deepEqual(
          (await listed.get("/api/v1/mcp/tools?set=voice")).body.tools.map((x: any) => x.name),
          ["get_rooms", "trigger_rule"],
        );
      } finally {
        await listed.close();
      }
    });

    it("refuses to start with a tool name it does not know", async () => {
      const settings = buildSettings({ auth: testAuthSettings(), mcp: { tools: ["get_rooms", "get_everything"] } });
      await assert.rejects(
        createApp({ config: { port: 0, dataDir: "/nonexistent-careflow", databaseUrl: undefined, settingsFile: undefined, settings }, nodeRed: false }),
        /mcp.tools: unknown tool 'get_everything'/,
      );
    });
  });
});
