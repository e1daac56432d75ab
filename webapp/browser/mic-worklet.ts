/**
 * The web app's microphone tap (`/app/mic-worklet.js`, an AudioWorklet module): takes the
 * microphone at the audio context's rate, resamples it to 24 kHz mono (the Realtime API's
 * PCM) by linear interpolation, and posts int16 chunks of 100 ms to the page, which sends
 * them on `/ws` while a voice conversation goes on.
 */
(() => {
  // Only what this module uses of the AudioWorklet global scope (the project's lib is the DOM's).
  interface WorkletScope {
    sampleRate: number;
    AudioWorkletProcessor: new () => { readonly port: MessagePort };
    registerProcessor(name: string, ctor: unknown): void;
  }
  const scope = globalThis as unknown as WorkletScope;
  const OUT_RATE = 24000;
  const CHUNK = OUT_RATE / 10;

  class MicProcessor extends scope.AudioWorkletProcessor {
    private readonly step = scope.sampleRate / OUT_RATE;
    /** Where the next output sample falls, in input samples of the current block. */
    private pos = 0;
    private out = new Int16Array(CHUNK);
    private filled = 0;

    process(inputs: Float32Array[][]): boolean {
      const input = inputs[0]?.[0];
      if (!input || input.length === 0) return true;
      while (this.pos < input.length) {
        const i = Math.floor(this.pos);
        const a = input[i];
        const b = i + 1 < input.length ? input[i + 1] : a;
        const v = a + (b - a) * (this.pos - i);
        this.out[this.filled++] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
        if (this.filled === CHUNK) {
          this.port.postMessage(this.out.buffer, [this.out.buffer]);
          this.out = new Int16Array(CHUNK);
          this.filled = 0;
        }
        this.pos += this.step;
      }
      this.pos -= input.length;
      return true;
    }
  }

  scope.registerProcessor("careflow-mic", MicProcessor);
})();
