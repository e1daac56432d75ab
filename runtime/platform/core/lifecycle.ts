/**
 * The running parts of the service, each with how it stops. A part registers its stop when
 * it starts; `stop()` stops them in the reverse order, so a part never outlives what it uses
 * (the store closes last, the triggers first). A stop that throws is logged and the rest go on.
 */
import type { Logger } from "./logger";

type Stop = () => void | Promise<void>;

export class Lifecycle {
  private readonly parts: Array<{ name: string; stop: Stop }> = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly log: Logger) {}

  /** Registers a part that has started. */
  add(name: string, stop: Stop): void {
    this.parts.push({ name, stop });
  }

  /** Stops every part once, last started first. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const part of [...this.parts].reverse()) {
        try {
          await part.stop();
        } catch (err) {
          this.log.error({ err, part: part.name }, "stopping a part of the service failed");
        }
      }
    })();
    return this.stopping;
  }
}
