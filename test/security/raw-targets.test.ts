/**
 * Raw request targets, sent byte for byte, for every write route with every key that may
 * not write there: a fragment, `;`, dot segments, double or trailing slashes, encodings
 * and case must never make the permission check and the router read two different paths.
 * A refused request ends in 400 (target refused), 401, 403 or the router's own 404; never
 * in a handler (which would answer 2xx, 409, 422 or its own "… not found").
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";
import { appRoutes, concretePath } from "../support/route-table";
import { rawRequest } from "../support/raw-http";

type Caller = "caregiver" | "mcp" | "camera" | "display" | "terminal";
const CALLERS: readonly Caller[] = ["caregiver", "mcp", "camera", "display", "terminal"];

/** What each caller may write, per the spec's role table (GETs are not write routes). */
const MAY_WRITE: Record<Caller, readonly RegExp[]> = {
  caregiver: [
    /^POST \/api\/v1\/alerts\/[^/]+\/action$/,
    // Caregivers author the knowledge repository, all but the hard delete of a whole document, card or quiz (docs/decisions.md).
    /^(POST|PATCH) \/api\/v1\/(knowledge|info-cards|quizzes)(\/.+)?$/,
    /^PUT \/api\/v1\/(info-cards|quizzes)\/.+$/,
    /^DELETE \/api\/v1\/(knowledge\/documents\/[^/]+\/images|info-cards\/[^/]+\/slots|quizzes\/[^/]+\/questions)\/[^/]+(\/image)?$/,
    // Caregivers acknowledge dementia signals (docs/decisions.md, issue 26).
    /^POST \/api\/v1\/cts\/signals\/[^/]+\/acknowledge$/,
    // Rehearsing a rule changes nothing outside its scratch store (docs/rehearsal.md).
    /^POST \/api\/v1\/rules\/[^/]+\/rehearse$/,
    // Drafting a rule from words saves nothing (docs/rehearsal.md).
    /^POST \/api\/v1\/rules\/draft-from-words$/,
  ],
  mcp: [/^POST \/api\/v1\/mcp\/tools\/[^/]+$/, /^POST \/api\/v1\/rules\/[^/]+\/execute$/, /^(POST|DELETE) \/mcp$/],
  camera: [/^POST \/api\/v1\/device\/camera$/],
  display: [],
  terminal: [/^POST \/api\/v1\/device\/terminal$/, /^POST \/api\/v1\/interactive-responses$/],
};

/** Ways to dress a path so that a naive check reads something else than the router does. */
export function disguises(path: string): string[] {
  const [, api, rest] = /^(\/api\/v1)(\/.*)$/.exec(path) ?? ["", "", path];
  const tails = ["/execute", "/action", "/tools/get_rooms"];
  return [
    ...tails.flatMap((t) => [`${path}#${t}`, `${path}/#${t}`, `${path};${t}`, `${path}?x=${t}`, `${path}%23${t}`, `${path}%2F..%2F${t.slice(1)}`]),
    `/api/v1/rules/1/execute/../../..${rest}`,
    `/api/v1/alerts/1/action/%2e%2e/%2e%2e/%2e%2e/%2e%2e${rest}`,
    `${path}/`,
    `${path}//`,
    `${api}/${rest}`,
    `${path}/x/..`,
    `${path}/.`,
    `${api}/./${rest.slice(1)}`,
    `${api}${rest.toUpperCase()}`,
    `/API/V1${rest}`,
    `${api}/%${rest.charCodeAt(1).toString(16)}${rest.slice(2)}`,
    `http://127.0.0.1${path}`,
    `${path}\\..\\execute`,
  ];
}

describe("security: raw request targets cannot smuggle a write past the permission check", function () {
  this.timeout(180_000);
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp({ nodeRed: true, settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 1_000_000 } } } });
    port = Number(new URL(t.baseUrl).port);
    // Something for the write routes to act on, were a request to get through.
    await t.post("/api/v1/rooms", { name: "kitchen" });
    await t.post("/api/v1/rules", { name: "Existing", trigger_type: "manual" });
  });
  after(() => t.close());

  it("the fragment trick of the probe: POST /api/v1/rules/#/execute with the read-only key", async () => {
    const res = await rawRequest(port, {
      method: "POST",
      target: "/api/v1/rules/#/execute",
      headers: { "x-api-key": KEYS.mcp, "content-type": "application/json" },
      body: JSON.stringify({ name: "Smuggled", trigger_type: "manual" }),
    });
    assert.equal(res.status, 400, res.body);
    assert.match((res.json as { detail: string }).detail, /fragment/);
    const rules = (await t.get("/api/v1/rules")).body as Array<{ name: string }>;
    assert.equal(
      rules.some((r) => r.name === "Smuggled"),
      false,
    );
  });

  it("refuses every disguised write of every route with every key that may not write there", async () => {
    const writes = appRoutes(t.app.server).filter((r) => !["GET", "HEAD"].includes(r.method));
    assert.ok(writes.length > 30, `only ${writes.length} write routes`);
    const failures: string[] = [];
    let sent = 0;
    for (const route of writes) {
      const path = concretePath(route.path, "1");
      for (const caller of CALLERS) {
        if (MAY_WRITE[caller].some((r) => r.test(`${route.method} ${route.path.replace(/:\w+/g, "x")}`))) continue;
        for (const target of disguises(path)) {
          // A disguise that reads, to the router, as a route this caller may use is no smuggling.
          const routerView = target.split(/[?#]/)[0].replace(/\/+$/, "");
          if (MAY_WRITE[caller].some((r) => r.test(`${route.method} ${routerView}`))) continue;
          const res = await rawRequest(port, {
            method: route.method,
            target,
            headers: { "x-api-key": KEYS[caller], "content-type": "application/json" },
            body: JSON.stringify({ name: "Smuggled", trigger_type: "manual", action: "dismiss" }),
          });
          sent++;
          const detail = (res.json as { detail?: unknown } | undefined)?.detail;
          const routerMiss = res.status === 404 && typeof detail === "string" && detail.startsWith("Not found:");
          if (![400, 401, 403].includes(res.status) && !routerMiss)
            failures.push(`${caller} ${route.method} ${target} → ${res.status} ${res.body.slice(0, 100)}`);
          else if (typeof detail !== "string") failures.push(`${caller} ${route.method} ${target} → ${res.status} without {"detail"}`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(sent > 1000, `only ${sent} requests`);
    const rules = (await t.get("/api/v1/rules")).body as Array<{ name: string }>;
    assert.equal(
      rules.some((r) => r.name === "Smuggled"),
      false,
      "a smuggled write created a rule",
    );
  });
});
