import assert from "node:assert/strict";
import libFlacFactory from "libflacjs";
import { Encoder } from "libflacjs/lib/encoder";
import { OggOpusDecoder } from "ogg-opus-decoder";
import { createOpusEncoder } from "../../tts/audio/opus";
import { oggCrc } from "../../tts/audio/ogg";
import { PcmByteAligner, chunkPcm, floatToInt16Buffer } from "../../tts/audio/pcm";
import { StreamingResampler } from "../../tts/audio/resample";
import { timeStretch } from "../../tts/audio/time-stretch";
import { parseWav, readWavChannel, wavHeader } from "../../tts/audio/wav";
import { referenceWav } from "./helpers";

function sine(frequency: number, rate: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

function frequencyOf(samples: Float32Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1] < 0 !== samples[i] < 0) crossings++;
  return crossings / 2 / (samples.length / rate);
}

describe("tts audio", function () {
  describe("StreamingResampler", function () {
    for (const [from, to] of [
      [22050, 24000],
      [16000, 24000],
      [48000, 24000],
    ]) {
      it(`keeps pitch and length from ${from} to ${to} Hz, whatever the chunking`, function () {
        const input = sine(440, from, 1);
        const resampler = new StreamingResampler(from, to);
        const parts: Float32Array[] = [];
        for (let i = 0; i < input.length; i += 997) parts.push(resampler.push(input.subarray(i, i + 997)));
        parts.push(resampler.flush());
        const output = Float32Array.from(parts.flatMap((p) => Array.from(p)));
        assert.equal(output.length, to);
        assert.ok(Math.abs(frequencyOf(output.subarray(100, to - 100), to) - 440) < 2);
        const peak = output.subarray(100, to - 100).reduce((m, s) => Math.max(m, Math.abs(s)), 0);
        assert.ok(peak > 0.48 && peak < 0.52, `peak ${peak}`);
      });
    }
  });

  it("time-stretch changes length, not pitch", function () {
    const input = sine(300, 22050, 1);
    for (const tempo of [0.5, 1.6]) {
      const output = timeStretch(input, tempo, 22050);
      assert.equal(output.length, Math.round(22050 / tempo));
      assert.ok(Math.abs(frequencyOf(output.subarray(500, output.length - 500), 22050) - 300) < 6);
    }
  });

  it("clips before converting to int16 instead of wrapping", function () {
    const pcm = floatToInt16Buffer(Float32Array.from([1.7, -3, 0.5, -1]));
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => pcm.readInt16LE(i * 2)),
      [32767, -32768, 16384, -32768],
    );
  });

  it("never splits a sample across network reads or chunks", function () {
    const aligner = new PcmByteAligner();
    const reads = [Buffer.from([1, 2, 3]), Buffer.from([4]), Buffer.from([5, 6, 7])].map((b) => aligner.push(b));
    assert.deepEqual(
      reads.map((r) => [...r]),
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    );
    assert.deepEqual(
      [...chunkPcm(Buffer.alloc(10), 3)].map((c) => c.length),
      [2, 2, 2, 2, 2],
    );
  });

  it("parses WAV with extra chunks and reads its samples", function () {
    const wav = referenceWav(10, 8000);
    const withList = Buffer.concat([wav.subarray(0, 12), Buffer.from("LIST\u0004\u0000\u0000\u0000abcd", "latin1"), wav.subarray(12)]);
    const info = parseWav(withList);
    assert.equal(info.sampleRate, 8000);
    assert.equal(info.durationSeconds, 10);
    assert.ok(readWavChannel(withList, info).some((s) => Math.abs(s) > 0.3));
    assert.deepEqual(parseWav(Buffer.concat([wavHeader(4800), Buffer.alloc(4800)])).durationSeconds, 0.1);
    assert.throws(() => parseWav(Buffer.from("not a wav file at all")), /RIFF/);
  });

  it("computes the same page CRCs as libogg (pages of an Ogg FLAC stream from libflac.js)", async function () {
    const flac = libFlacFactory();
    await new Promise<void>((resolve) => (flac.isReady() ? resolve() : flac.on("ready", () => resolve())));
    const encoder = new Encoder(flac, { sampleRate: 24000, channels: 1, bitsPerSample: 16, compression: 5, verify: false, isOgg: true });
    encoder.encode([Int32Array.from(sine(440, 24000, 1), (s) => Math.round(s * 20000))]);
    encoder.encode();
    const stream = Buffer.from(encoder.getSamples());
    encoder.destroy();
    let pages = 0;
    for (let offset = 0; offset < stream.length; pages++) {
      const segments = stream[offset + 26];
      let length = 27 + segments;
      for (let i = 0; i < segments; i++) length += stream[offset + 27 + i];
      const page = Buffer.from(stream.subarray(offset, offset + length));
      const stored = page.readUInt32LE(22);
      page.writeUInt32LE(0, 22);
      assert.equal(oggCrc(page), stored, `page ${pages}`);
      offset += length;
    }
    assert.ok(pages >= 2);
  });

  it("writes Ogg Opus whose granule end trims to the input length", async function () {
    const encoder = createOpusEncoder();
    const input = floatToInt16Buffer(sine(440, 24000, 1.234));
    encoder.push(input.subarray(0, 1001));
    encoder.push(input.subarray(1001));
    const decoder = new OggOpusDecoder();
    await decoder.ready;
    const decoded = await decoder.decodeFile(new Uint8Array(encoder.finish()));
    decoder.free();
    assert.equal(decoded.sampleRate, 48000);
    assert.ok(Math.abs(decoded.samplesDecoded - 1.234 * 48000) < 960, `${decoded.samplesDecoded} samples`);
    assert.ok(Math.abs(frequencyOf(decoded.channelData[0].subarray(4800, 48000), 48000) - 440) < 5);
  });
});
