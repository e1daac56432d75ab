/**
 * A person's language and the household's (issue 49): `language` on a member is a BCP 47 tag
 * kept in its canonical spelling, null following `app.language`; a bad one is refused beside
 * the field. The senior's tablet is told her language (the Senior member's, else the
 * household's) and every fixed word in it when it connects, and again at once when it changes.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";

type Frame = { type: string; language?: string; messages?: { prompt: { title: string } } };

describe("persons: language", () => {
  let t: TestApp;
  const sockets: WebSocket[] = [];
  before(async () => {
    t = await startTestApp({ settings: { app: { language: "de" } } });
  });
  after(async () => {
    for (const ws of sockets) ws.close();
    await t.close();
  });

  const tablet = async (): Promise<Frame[]> => {
    const frames: Frame[] = [];
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [KEYS.webapp]);
    sockets.push(ws);
    ws.on("message", (data) => frames.push(JSON.parse(String(data)) as Frame));
    await eventually("the welcome", () => frames.some((f) => f.type === "welcome"));
    return frames;
  };

  it("app.language is a well-formed tag, canonical, English when not set", () => {
    assert.equal(buildSettings({}).app.language, "en");
    assert.equal(buildSettings({ app: { language: "HI-in" } }).app.language, "hi-IN");
    assert.throws(() => buildSettings({ app: { language: "not a language" } }), /app\.language: a BCP 47 language tag/);
  });

  it("is kept canonical, null follows the household, and a bad one is refused beside the field", async () => {
    const rose = await t.post("/api/v1/persons", { display_name: "Rose", language: "hi-in" });
    assert.equal(rose.status, 201, rose.text);
    assert.equal(rose.body.language, "hi-IN");
    const tom = await t.post("/api/v1/persons", { display_name: "Tom", cts_alert_config: { enabled_kinds: ["absence"], min_severity: "info" } });
    assert.equal(tom.body.language, null);
    for (const bad of ["english please", "", 7, "x".repeat(40)]) {
      const res = await t.request("PATCH", "/api/v1/persons/tom", { body: { language: bad } });
      assert.equal(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
      assert.match(res.body.detail, /language/);
    }
    const back = await t.request("PATCH", "/api/v1/persons/rose", { body: { language: null } });
    assert.equal(back.body.language, null);
    assert.equal((await t.get("/api/v1/persons/tom")).body.language, null);
  });

  it("the tablet gets the senior's language and its words on connecting, and the new ones when it changes", async () => {
    // Rose (Senior) follows the household: German.
    const frames = await tablet();
    const welcome = frames.find((f) => f.type === "welcome")!;
    assert.equal(frames[0].type, "welcome", "the welcome comes first");
    assert.equal(welcome.language, "de");
    assert.equal(welcome.messages?.prompt.title, "Eine Frage an Sie");
    // Tom's language is no matter: he is no Senior.
    await t.request("PATCH", "/api/v1/persons/tom", { body: { language: "en" } });
    const rose = await t.request("PATCH", "/api/v1/persons/rose", { body: { language: "hi" } });
    assert.equal(rose.status, 200, rose.text);
    await eventually("the language frame", () => frames.some((f) => f.type === "language"));
    const changed = frames.filter((f) => f.type === "language");
    assert.deepEqual(
      changed.map((f) => [f.language, f.messages?.prompt.title]),
      [["hi", "आपसे एक सवाल"]],
      "told once, in Hindi",
    );
    const again = await tablet();
    assert.equal(again.find((f) => f.type === "welcome")!.language, "hi");
  });
});
