/**
 * Background work done one piece after another, in the order it was asked for (a day's job and
 * the sends it starts must not overlap), with a way to wait until everything is done.
 */
export class SerialWork {
  private tail: Promise<void> = Promise.resolve();

  /** `onError`: a piece that throws is reported here and the next still runs. */
  constructor(private readonly onError: (err: unknown) => void) {}

  add(work: () => Promise<void>): void {
    this.tail = this.tail.then(work).catch(this.onError);
  }

  /** Resolves once every piece is done, those added while waiting too. */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.tail;
      await seen;
    } while (seen !== this.tail);
  }
}
