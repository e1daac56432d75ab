import type { Voice } from "../engines/engine";
import type { EngineRegistry } from "../engines/registry";
import type { VoiceStore } from "./voice-store";

/** Every voice a request may name: the engines' built-in ones and the household's cloned ones. */
export function listVoices(engines: EngineRegistry, store: VoiceStore): Voice[] {
  const builtIn = engines.list().flatMap((engine) => engine.voices());
  const cloned: Voice[] = store.list().map((voice) => ({
    id: voice.voice_id,
    name: voice.name,
    engine: "cloning",
    language: voice.language,
    supports_cloning: true,
    sample_rate: voice.sample_rate,
    is_default: false,
  }));
  return [...builtIn, ...cloned];
}
