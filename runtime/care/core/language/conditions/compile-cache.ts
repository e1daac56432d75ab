/**
 * A small bounded cache keyed by source text. Rules are re-run on every trigger with the same
 * expressions and templates, so parsing once per distinct text is enough; the bound keeps a
 * long-running process from growing with every expression ever typed into the editor.
 *
 * Eviction is least-recently-used by second chance: a hit only marks its entry, and an
 * eviction passes marked entries over once (moving them to the young end). A hit costs a
 * lookup, not a re-insertion, which matters when every step of every run asks.
 */
interface Entry<V> {
  value: V;
  used: boolean;
}

export class LruCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value (marked as used), or computes, stores and returns it. */
  getOrCreate(key: string, create: (key: string) => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      hit.used = true;
      return hit.value;
    }
    const value = create(key);
    if (this.entries.size >= this.capacity) this.evictOne();
    this.entries.set(key, { value, used: false });
    return value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private evictOne(): void {
    // Map keeps insertion order: the first entries are the oldest.
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      if (!entry.used) return;
      entry.used = false;
      this.entries.set(key, entry);
    }
  }
}
