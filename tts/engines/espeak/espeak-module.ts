/**
 * Typed view of @echogarden/espeak-ng-emscripten (eSpeak NG compiled to WASM). The package ships
 * no types and is an ES module, so it is loaded with a real dynamic import: TypeScript's CommonJS
 * output would turn `import()` into `require()`, which only some Node versions allow for ESM.
 */
export interface EspeakWorker {
  set_voice(name: string): number;
  set_rate(wordsPerMinute: number): void;
  get_samplerate(): number;
  /** Calls back with int16 chunks at get_samplerate(); returning true from the callback aborts. */
  synthesize(text: string, onAudio: (samples: Int16Array | undefined, events: unknown[]) => boolean): void;
}

interface EspeakModule {
  eSpeakNGWorker: new () => EspeakWorker;
}

const importEsm = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<{
  default: () => Promise<EspeakModule>;
}>;

export async function loadEspeak(): Promise<EspeakWorker> {
  const { default: factory } = await importEsm("@echogarden/espeak-ng-emscripten");
  const module = await factory();
  return new module.eSpeakNGWorker();
}

/** eSpeak NG's rate is words per minute; 175 is its normal speed and 80-450 its usable range. */
export const ESPEAK_NORMAL_RATE = 175;
export const ESPEAK_MIN_RATE = 80;
export const ESPEAK_MAX_RATE = 450;
