/**
 * What the media store offers, whichever holds the bytes (media-objects.ts chooses): put, get,
 * stat, list and delete by object name, a path relative to the data dir with forward slashes.
 * Names are content-addressed: a name's bytes never change.
 */
export interface ObjectStat {
  name: string;
  size: number;
  /** When it was last put, epoch milliseconds of the app clock. */
  modified_ms: number;
}

export interface MediaObjectStore {
  /** Stores the bytes under `name` (once: a second put only marks it as written at `nowMs`). */
  put(name: string, bytes: Buffer, nowMs: number): Promise<void>;
  get(name: string): Promise<Buffer | null>;
  stat(name: string): Promise<ObjectStat | null>;
  /** Every object whose name starts with `prefix` (a folder, ending in "/"). */
  list(prefix: string): Promise<ObjectStat[]>;
  /** Deletes it, unless it was put after `unlessPutAfter` (epoch ms: a put racing the delete wins). True when deleted. */
  delete(name: string, unlessPutAfter?: number): Promise<boolean>;
}
