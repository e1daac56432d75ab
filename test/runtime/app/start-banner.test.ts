/** What a start prints: where the pages are at every start, the demo's keys only on its first. */
import assert from "node:assert/strict";
import { settingsSchema } from "../../../settings";
import { demoKeysBanner, placesBanner, setupLinkBanner } from "../../../runtime/app/start-banner";

const at = { base: "http://localhost:8080", household: "http://192.0.2.7:8080" };

describe("the start banner", () => {
  it("an empty household's set-up link: the Household page with its one-time token", () => {
    const text = setupLinkBanner(at, "tok/en").join("\n");
    assert.match(text, /no household yet/);
    assert.match(text, /http:\/\/localhost:8080\/household\/\?setup=tok%2Fen/);
  });

  it("says where the editor, the Knowledge page, the tablet and its set-up link are", () => {
    const settings = settingsSchema.parse({ auth: { api_keys: [{ key: "tablet-key-long-enough", name: "tablet", permissions: ["webapp"] }] } });
    const text = placesBanner(settings, at).join("\n");
    assert.match(text, /Editor: +http:\/\/localhost:8080\/editor/);
    assert.match(text, /Knowledge page: +http:\/\/localhost:8080\/knowledge\//);
    assert.match(text, /Senior's tablet: +http:\/\/192\.0\.2\.7:8080\/app\//);
    assert.match(text, /http:\/\/192\.0\.2\.7:8080\/api\/v1\/admin\/webapp-link\/qr\.svg\?api_key=<admin key>/);
    assert.ok(!text.includes("tablet-key-long-enough"), "the tablet's key is not printed");
  });

  it("without a web app key, says how to give the tablet one", () => {
    const text = placesBanner(settingsSchema.parse({}), at).join("\n");
    assert.match(text, /no key in the settings yet.*CAREFLOW_WEBAPP_KEY/);
    assert.match(text, /household\/ \(Devices, "Make a new tablet link": shown once\)/);
    assert.doesNotMatch(text, /webapp-link/);
  });

  it("prints the demo's keys with the set-up link itself", () => {
    const settings = settingsSchema.parse({
      auth: {
        api_keys: [
          { key: "adm-demo-key-long-enough", name: "demo admin", permissions: ["admin"] },
          { key: "web-demo-key-long-enough", name: "demo web app", permissions: ["webapp"] },
        ],
      },
    });
    const text = demoKeysBanner(settings, "/tmp/data", at).join("\n");
    assert.match(text, /Web app: +http:\/\/192\.0\.2\.7:8080\/app\/#key=web-demo-key-long-enough/);
    assert.match(text, /admin +adm-demo-key-long-enough/);
  });
});
