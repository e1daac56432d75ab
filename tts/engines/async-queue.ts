/**
 * Bridges callback producers (worker messages, socket reads) to `for await` consumers. The
 * producer pushes as fast as it likes; the consumer drains at its own pace.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private failure: Error | null = null;
  private failWaiting: ((err: Error) => void) | null = null;
  private ended = false;

  push(item: T): void {
    if (this.ended) return;
    if (this.waiting) this.take()({ value: item, done: false });
    else this.items.push(item);
  }

  end(): void {
    this.ended = true;
    if (this.waiting && this.items.length === 0) this.take()({ value: undefined, done: true });
  }

  fail(err: Error): void {
    this.failure = err;
    this.ended = true;
    if (this.failWaiting) {
      const reject = this.failWaiting;
      this.waiting = null;
      this.failWaiting = null;
      reject(err);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length > 0) return Promise.resolve({ value: this.items.shift() as T, done: false });
        if (this.failure) return Promise.reject(this.failure);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.waiting = resolve;
          this.failWaiting = reject;
        });
      },
    };
  }

  private take(): (result: IteratorResult<T>) => void {
    const resolve = this.waiting!;
    this.waiting = null;
    this.failWaiting = null;
    return resolve;
  }
}
