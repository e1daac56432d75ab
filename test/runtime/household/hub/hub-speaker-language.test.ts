/**
 * The speaker speaks her language (issue 49): in a German household a reminder on the hub
 * speaker goes through careflow's speech service with `language: "de"` to its engine (here a
 * remote, OpenAI-compatible one: the fake speech backend records what it was asked to say), and
 * the fake hub plays the clip; a Senior member's own language wins over the household's.
 */
import assert from "node:assert/strict";
import { startFakeHub, type FakeHub } from "../../../fakes/hub-server";
import { startFakeSpeechServer, type FakeSpeechServer } from "../../../fakes/openai-speech-server";
import { startTts, type RunningTts } from "../../../tts/helpers";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";

const PUBLIC = "http://careflow.test";

describe("the hub speaker in the senior's language", function () {
  this.timeout(60000);
  let hub: FakeHub;
  let backend: FakeSpeechServer;
  let tts: RunningTts;
  let t: TestApp;

  before(async () => {
    hub = await startFakeHub({ token: "hub-token-1", states: [{ entity_id: "media_player.kitchen_speaker", state: "idle", attributes: {} }] });
    backend = await startFakeSpeechServer();
    // careflow asks for its default model, svara; here that is a remote engine.
    tts = await startTts({ TTS_SVARA_URL: backend.baseUrl });
    t = await startTestApp({
      nodeRed: true,
      settings: {
        app: { public_url: PUBLIC, language: "de" },
        tts: { url: tts.url },
        hub: { url: hub.url, token: hub.token, media_player: "media_player.kitchen_speaker" },
      },
    });
    assert.ok(await t.app.ctx.hub!.client!.whenConnected(5000), "connected to the fake hub");
  });
  after(async () => {
    await t?.close();
    await tts?.close();
    await backend?.close();
    await hub?.close();
  });

  let seq = 0;
  async function speak(sentence: string): Promise<{ said: Record<string, unknown>; played: string }> {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: `Speaker ${++seq}`, trigger_type: "manual" },
      steps: [
        {
          label: "say",
          step_type: "notification",
          schema_version: 1,
          config: { alert_level: "reminder", channels: ["hub_speaker_tts"], message_template: sentence },
        },
      ],
      edges: [],
    });
    assert.equal(imported.status, 201, imported.text);
    hub.clearCalls();
    const before = backend.speeches.length;
    await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`);
    const play = await eventually("play_media on the speaker", () => hub.calls.find((c) => c.service === "play_media"));
    assert.deepEqual(play.target, { entity_id: "media_player.kitchen_speaker" });
    const url = String(play.service_data.media_content_id);
    const audio = await fetch(t.baseUrl + url.slice(PUBLIC.length));
    assert.equal(audio.headers.get("content-type"), "audio/mpeg", "the speaker gets an MP3 it can fetch");
    const said = backend.speeches.slice(before).find((s) => s.body.input === sentence);
    assert.ok(said, `the engine was asked to say "${sentence}" (got ${JSON.stringify(backend.speeches.map((s) => s.body))})`);
    return { said: said.body, played: url };
  }

  it("a German household: the engine is asked to say the German sentence in German, and the hub plays it", async () => {
    const { said } = await speak("Rosa, es ist Zeit für Ihre Abendmedizin.");
    assert.equal(said.language, "de");
  });

  it("a Hindi-speaking Senior member in the same household: her language, not the household's", async () => {
    const kamala = await t.post("/api/v1/persons", { display_name: "Kamala", language: "hi" });
    assert.equal(kamala.status, 201, kamala.text);
    try {
      const { said } = await speak("कमला जी, दवा लेने का समय हो गया है।");
      assert.equal(said.language, "hi");
    } finally {
      await t.request("DELETE", `/api/v1/persons/${kamala.body.person_id}`);
    }
  });
});
