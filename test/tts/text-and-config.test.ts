import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../tts/config";
import { resolveEspeakVoice } from "../../tts/engines/espeak/espeak-voices";
import { splitSentences } from "../../tts/text/sentences";

describe("tts text and configuration", function () {
  it("splits sentences, keeps abbreviations and decimals, and bounds long ones", function () {
    assert.deepEqual(splitSentences("Dr. Rao called. Take 2.5 mg now! Done?"), ["Dr. Rao called.", "Take 2.5 mg now!", "Done?"]);
    assert.deepEqual(splitSentences("दवा लें। पानी पिएं।"), ["दवा लें।", "पानी पिएं।"]);
    assert.deepEqual(splitSentences("One line\nanother line"), ["One line", "another line"]);
    const long = splitSentences(`${"word ".repeat(60)}, ${"more ".repeat(60)}`, 250);
    assert.ok(long.length >= 2 && long.every((s) => s.length <= 250));
    assert.deepEqual(splitSentences("... !!"), []);
  });

  it("resolves voices: the voice keeps its gender in the requested language", function () {
    assert.deepEqual(resolveEspeakVoice(undefined, undefined, "en-us-female"), { id: "en-us-female", language: "en-us" });
    assert.deepEqual(resolveEspeakVoice("en-us-male", "hi-IN", "en-us-female"), { id: "hi-male", language: "hi" });
    assert.deepEqual(resolveEspeakVoice(undefined, "EN_gb", "en-us-female"), { id: "en-gb-female", language: "en-gb" });
    assert.deepEqual(resolveEspeakVoice(undefined, "od", "ta-male"), { id: "or-male", language: "or" });
    assert.throws(() => resolveEspeakVoice("nobody", undefined, "en-us-female"), /^ValidationError: voice: /);
  });

  it("reads the environment, with defaults", function () {
    const config = loadConfig({});
    assert.equal(config.port, 8090);
    assert.equal(config.defaultModel, "espeak");
    assert.equal(config.defaultVoice, "en-us-female");
    assert.match(config.dataDir, /data\/tts$/);
    assert.deepEqual(config.backends, []);
    const custom = loadConfig({
      TTS_PORT: "9000",
      TTS_DEFAULT_LANGUAGE: "hi",
      TTS_REMOTE_TTS_URL: "http://gpu-box:8880/v1/",
      TTS_REMOTE_TTS_VOICES: "alloy, priya:hi",
    });
    assert.equal(custom.defaultVoice, "hi-female");
    assert.deepEqual(custom.backends[0], {
      engine: "remote_tts",
      url: "http://gpu-box:8880/v1",
      apiKey: undefined,
      model: "remote_tts",
      voices: [
        { id: "alloy", language: "en" },
        { id: "priya", language: "hi" },
      ],
      sampleRate: 24000,
      nativeStreaming: true,
      streamChunkBytes: 21 * 240 * 2,
    });
    // stream_frame_buffer: frames of 10 ms (240 samples of 2 bytes) per streamed piece.
    assert.equal(loadConfig({ TTS_SEAMLESS_URL: "http://gpu-box:8880/v1", TTS_STREAM_FRAME_BUFFER: "5" }).backends[0].streamChunkBytes, 5 * 240 * 2);
    assert.throws(() => loadConfig({ TTS_STREAM_FRAME_BUFFER: "0" }), /TTS_STREAM_FRAME_BUFFER/);
    assert.throws(() => loadConfig({ TTS_PORT: "eighty" }), ConfigError);
    assert.throws(() => loadConfig({ TTS_DEFAULT_MODEL: "tts-1" }), /TTS_DEFAULT_MODEL/);
    assert.throws(() => loadConfig({ TTS_SVARA_URL: "not a url" }), /TTS_SVARA_URL/);
  });
});
