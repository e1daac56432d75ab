/**
 * A read kept between callers until it may be stale: while its key (what the caller knows to
 * change when the data does: a rules version, a deploy count) is the same and it is younger
 * than `maxAgeMs`, which bounds the changes no key sees (a write through another instance).
 * Callers share the kept value and must not change it. A read that fails is not kept.
 */
export class KeptRead<V> {
  private kept: { key: string; at: number; value: Promise<V> } | null = null;

  constructor(
    private readonly maxAgeMs: number,
    private readonly now: () => number,
  ) {}

  /** `key` is taken before the read starts: a change during the read makes its answer stale at once. */
  get(key: string, read: () => Promise<V>): Promise<V> {
    const now = this.now();
    const kept = this.kept;
    if (kept && kept.key === key && now - kept.at < this.maxAgeMs && now >= kept.at) return kept.value;
    const entry = { key, at: now, value: read() };
    this.kept = entry;
    entry.value.catch(() => {
      if (this.kept === entry) this.kept = null;
    });
    return entry.value;
  }

  forget(): void {
    this.kept = null;
  }
}
