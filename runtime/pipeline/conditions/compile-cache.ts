/**
 * A small bounded LRU keyed by source text. Rules are re-run on every trigger with the same
 * expressions and templates, so parsing once per distinct text is enough; the bound keeps a
 * long-running process from growing with every expression ever typed into the editor.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value (now the most recently used), or computes, stores and returns it. */
  getOrCreate(key: string, create: (key: string) => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting moves the key to the young end.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = create(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
