/**
 * Each role against representative routes of each method, over real HTTP: the answer is
 * never 401/403 when the spec's role table allows the call, and exactly 403 when not.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

type Role = "admin" | "caregiver" | "mcp" | "camera" | "display";
type Expect = "allow" | 403;

interface Row {
  method: string;
  path: string;
  body?: unknown;
  expect: Record<Role, Expect>;
}

const ALL: Record<Role, Expect> = { admin: "allow", caregiver: "allow", mcp: "allow", camera: 403, display: 403 };
const ADMIN_ONLY: Record<Role, Expect> = { admin: "allow", caregiver: 403, mcp: 403, camera: 403, display: 403 };

const ROWS: Row[] = [
  { method: "GET", path: "/api/v1/rooms", expect: ALL },
  { method: "GET", path: "/api/v1/sensors?sensor_type=camera", expect: ALL },
  { method: "GET", path: "/api/v1/alerts", expect: ALL },
  { method: "GET", path: "/api/v1/admin/config", expect: ALL },
  // The set-up link holds the web app's key: not for every GET-capable role.
  { method: "GET", path: "/api/v1/admin/webapp-link", expect: ADMIN_ONLY },
  { method: "GET", path: "/api/v1/admin/webapp-link/qr.svg", expect: ADMIN_ONLY },
  { method: "GET", path: "/api/v1/admin/Webapp-Link", expect: ADMIN_ONLY },
  { method: "POST", path: "/api/v1/rooms", body: { name: "study" }, expect: ADMIN_ONLY },
  { method: "PUT", path: "/api/v1/rooms/1", body: { floor: "1" }, expect: ADMIN_ONLY },
  { method: "PATCH", path: "/api/v1/persons/rose", body: { notes: "x" }, expect: ADMIN_ONLY },
  { method: "DELETE", path: "/api/v1/sensors/no_such_sensor", expect: ADMIN_ONLY },
  {
    method: "POST",
    path: "/api/v1/alerts/1/action",
    body: { action: "assist" },
    expect: { admin: "allow", caregiver: "allow", mcp: 403, camera: 403, display: 403 },
  },
  { method: "POST", path: "/api/v1/rules/1/execute", expect: { admin: "allow", caregiver: 403, mcp: "allow", camera: 403, display: 403 } },
  { method: "POST", path: "/api/v1/mcp/tools/get_rooms", body: {}, expect: { admin: "allow", caregiver: 403, mcp: "allow", camera: 403, display: 403 } },
  { method: "POST", path: "/api/v1/device/camera", body: {}, expect: { admin: "allow", caregiver: 403, mcp: 403, camera: "allow", display: 403 } },
  { method: "GET", path: "/api/v1/image/active", expect: { admin: "allow", caregiver: "allow", mcp: "allow", camera: 403, display: "allow" } },
];

describe("authorization matrix", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.post("/api/v1/rooms", { name: "kitchen" });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
  });
  after(() => t.close());

  for (const row of ROWS) {
    for (const role of Object.keys(row.expect) as Role[]) {
      const expected = row.expect[role];
      it(`${role} ${expected === "allow" ? "may" : "may not"} ${row.method} ${row.path}`, async () => {
        const res = await t.request(row.method, row.path, { key: KEYS[role], body: row.body });
        if (expected === "allow") {
          assert.ok(![401, 403].includes(res.status), `expected access, got ${res.status} ${res.text}`);
        } else {
          assert.equal(res.status, 403, res.text);
          assert.match(res.body.detail, /Permission denied/);
        }
      });
    }
  }

  it("answers 401 with a detail when no key is sent", async () => {
    const res = await t.request("GET", "/api/v1/rooms", { key: null });
    assert.equal(res.status, 401);
    assert.equal(typeof res.body.detail, "string");
  });

  it("answers 401 for an unknown key", async () => {
    const res = await t.request("GET", "/api/v1/rooms", { key: "not-a-real-key-at-all" });
    assert.equal(res.status, 401);
    assert.equal(res.body.detail, "Invalid API key");
  });

  it("answers 401 before looking at a malformed body from an unknown caller", async () => {
    const res = await t.request("POST", "/api/v1/rooms", { key: null, rawBody: "{nope", headers: { "content-type": "application/json" } });
    assert.equal(res.status, 401);
  });

  it("answers 422 for a malformed JSON body from a known caller", async () => {
    const res = await t.request("POST", "/api/v1/rooms", { rawBody: "{nope", headers: { "content-type": "application/json" } });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /not valid JSON/);
  });

  it("keeps /health open without a key", async () => {
    const res = await t.request("GET", "/health", { key: null });
    assert.equal(res.status, 200);
    assert.equal(res.body.database.ok, true);
  });
});
