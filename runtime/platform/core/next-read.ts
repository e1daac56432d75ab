/**
 * Many callers of one read at once share it, without ever getting an answer older than their
 * call: a caller that arrives while a read is in flight waits for the next one, which starts
 * when that finishes and serves everyone who arrived meanwhile. A burst of N callers costs two
 * reads instead of N, and what was committed before a call is always in its answer. Callers
 * share the value: they must not change it.
 */
export class NextRead<T> {
  private current: Promise<T> | null = null;
  private next: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.current) {
      const started: Promise<T> = this.read().finally(() => {
        if (this.current === started) this.current = null;
      });
      this.current = started;
      return started;
    }
    if (!this.next)
      this.next = this.current.then(
        () => this.startNext(),
        () => this.startNext(),
      );
    return this.next;
  }

  private startNext(): Promise<T> {
    this.next = null;
    return this.get();
  }
}
