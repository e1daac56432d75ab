/**
 * Items added during one turn of the event loop are handed over together on the next, so
 * that timers falling due together become one batch (and one statement per chunk) instead
 * of one database round trip each.
 */
export class BatchQueue<T> {
  private items: T[] = [];
  private draining = 0;

  constructor(
    private readonly drain: (items: T[]) => Promise<void>,
    private readonly onError: (err: unknown, items: T[]) => void,
  ) {}

  add(item: T): void {
    this.items.push(item);
    if (this.items.length > 1) return;
    setImmediate(() => {
      const batch = this.items;
      this.items = [];
      this.draining++;
      void this.drain(batch)
        .catch((err) => this.onError(err, batch))
        .finally(() => this.draining--);
    });
  }

  /** Nothing queued and no batch being handed over. */
  get idle(): boolean {
    return this.items.length === 0 && this.draining === 0;
  }
}
