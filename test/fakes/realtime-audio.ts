/**
 * The audio side of the fake realtime model (realtime-server.ts): pcm16 tones and silence
 * (what tests feed it, and what it "speaks"), and the energy VAD that stands in for the
 * model's server_vad. Everything is measured in samples of audio, never by the clock, so a
 * test may send a minute of audio in one frame and still get the same events.
 */

/** The rate of pcm16 the Realtime API speaks both ways. */
export const SAMPLE_RATE = 24000;
/** The VAD judges audio in windows of 20 ms. */
const WINDOW_MS = 20;

export interface ToneOptions {
  sampleRate?: number;
  /** Peak amplitude of int16 (default 8000: well above the VAD's threshold). */
  amplitude?: number;
  /** Hz (default 440). */
  freq?: number;
}

/** `ms` of a sine tone as pcm16 mono little-endian. */
export function pcm16Tone(ms: number, options: ToneOptions = {}): Buffer {
  const rate = options.sampleRate ?? SAMPLE_RATE;
  const amplitude = options.amplitude ?? 8000;
  const freq = options.freq ?? 440;
  const n = Math.round((ms * rate) / 1000);
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * freq * i) / rate)), i * 2);
  return out;
}

/** `ms` of silence as pcm16 mono. */
export function pcm16Silence(ms: number, options: { sampleRate?: number } = {}): Buffer {
  return Buffer.alloc(Math.round((ms * (options.sampleRate ?? SAMPLE_RATE)) / 1000) * 2);
}

/** What the model says, as audio: a soft low tone of 60 ms per character of the text. */
export function spokenAudio(text: string): Buffer {
  return pcm16Tone(text.length * 60, { amplitude: 1500, freq: 220 });
}

/** A VAD event: `ms` on the session's audio clock, `offset` the byte in the fed audio just after the window that decided it. */
export interface VadEvent {
  type: "started" | "stopped";
  ms: number;
  offset: number;
}

/**
 * Speech starts at the first 20 ms window whose RMS exceeds the threshold, and stops once
 * `silenceMs` of windows in a row stay at or below it. The clock counts every sample appended
 * in the session (also while detection is off), as the API's audio_start_ms/audio_end_ms do.
 */
export class EnergyVad {
  private samples = 0;
  private sumSquares = 0;
  private inWindow = 0;
  private speaking = false;
  private silentMs = 0;
  /** A byte left over when an append ends mid-sample (it belongs to the next append's first sample). */
  private carry: number | null = null;

  constructor(private readonly threshold: number) {}

  get ms(): number {
    return Math.floor((this.samples * 1000) / SAMPLE_RATE);
  }

  /** Feeds pcm16; with `silenceMs` null only the clock moves (turn detection off). */
  feed(pcm: Buffer, silenceMs: number | null): VadEvent[] {
    const events: VadEvent[] = [];
    const windowSamples = (SAMPLE_RATE * WINDOW_MS) / 1000;
    let i = 0;
    if (this.carry !== null && pcm.length) {
      this.sample(Buffer.from([this.carry, pcm[0]]).readInt16LE(0), 1, silenceMs, windowSamples, events);
      this.carry = null;
      i = 1;
    }
    for (; i + 1 < pcm.length; i += 2) this.sample(pcm.readInt16LE(i), i + 2, silenceMs, windowSamples, events);
    if (i < pcm.length) this.carry = pcm[i];
    return events;
  }

  /** Forgets a speech in progress (buffer cleared or committed by hand, turn detection changed). */
  reset(): void {
    this.speaking = false;
    this.silentMs = 0;
    this.sumSquares = 0;
    this.inWindow = 0;
  }

  private sample(value: number, offset: number, silenceMs: number | null, windowSamples: number, events: VadEvent[]): void {
    this.samples++;
    if (silenceMs === null) return;
    this.sumSquares += value * value;
    if (++this.inWindow < windowSamples) return;
    const loud = Math.sqrt(this.sumSquares / this.inWindow) > this.threshold;
    this.sumSquares = 0;
    this.inWindow = 0;
    if (!this.speaking && loud) {
      this.speaking = true;
      this.silentMs = 0;
      events.push({ type: "started", ms: this.ms - WINDOW_MS, offset });
    } else if (this.speaking) {
      this.silentMs = loud ? 0 : this.silentMs + WINDOW_MS;
      if (this.silentMs >= silenceMs) {
        this.speaking = false;
        events.push({ type: "stopped", ms: this.ms, offset });
      }
    }
  }
}
