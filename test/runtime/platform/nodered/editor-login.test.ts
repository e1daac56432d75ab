/** The editor's login: an admin edits, a caregiver reads (flows, runs) but cannot deploy; the page says what to type. */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("editor login: admin and read-only caregiver", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  const login = async (username: string, password: string) => {
    const res = await fetch(`${t.baseUrl}/editor/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: "node-red-editor", grant_type: "password", scope: "", username, password }).toString(),
    });
    return { status: res.status, body: (await res.json()) as { access_token?: string; detail?: string } };
  };
  const editor = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${t.baseUrl}/editor${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "Node-RED-API-Version": "v2", ...(init.headers ?? {}) },
    });

  it("says on the login page what to type", async () => {
    const res = (await (await fetch(`${t.baseUrl}/editor/auth/login`)).json()) as { loginMessage?: string };
    assert.match(res.loginMessage ?? "", /admin with an admin API key.*caregiver with a caregiver API key/);
  });

  it("lets a caregiver log in and read the flows, but not deploy", async () => {
    const res = await login("caregiver", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const token = res.body.access_token!;
    const flows = await editor(token, "/flows");
    assert.equal(flows.status, 200);
    const current = (await flows.json()) as { flows: unknown[]; rev: string };
    const deploy = await editor(token, "/flows", { method: "POST", body: JSON.stringify(current), headers: { "Node-RED-Deployment-Type": "full" } });
    assert.equal(deploy.status, 401, "a read-only user cannot deploy");
  });

  it("refuses a caregiver key as the admin, and an admin key as nobody else", async () => {
    assert.equal((await login("admin", KEYS.caregiver)).status, 401);
    assert.equal((await login("caregiver", KEYS.mcp)).status, 401);
    assert.equal((await login("admin", KEYS.admin)).status, 200);
  });
});
