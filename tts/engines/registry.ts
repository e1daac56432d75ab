import type { EngineId, SpeechEngine } from "./engine";

/**
 * The engines this process can use. The local engine is always the last resort: whatever is
 * configured as default, a request that finds no other engine still gets spoken by it.
 */
export class EngineRegistry {
  private readonly engines = new Map<EngineId, SpeechEngine>();

  constructor(
    engines: SpeechEngine[],
    private readonly defaultId: EngineId,
    private readonly localId: EngineId,
  ) {
    for (const engine of engines) this.engines.set(engine.id, engine);
  }

  get(id: EngineId): SpeechEngine | undefined {
    return this.engines.get(id);
  }

  list(): SpeechEngine[] {
    return [...this.engines.values()];
  }

  /** The configured default when it is configured, else the local engine. */
  get defaultEngine(): SpeechEngine | undefined {
    return this.engines.get(this.defaultId) ?? this.engines.get(this.localId);
  }

  /** Engines to try after `failed`, in order: the default, then the local engine. */
  fallbacksAfter(failed: EngineId): SpeechEngine[] {
    const order = [this.defaultId, this.localId].filter((id, i, all) => id !== failed && all.indexOf(id) === i);
    return order.flatMap((id) => this.engines.get(id) ?? []);
  }

  async close(): Promise<void> {
    await Promise.all(this.list().map((engine) => engine.close()));
  }
}
