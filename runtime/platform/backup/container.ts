/**
 * The backup file: one gzip stream (node:zlib; no archive library is installed, and a tar
 * would add nothing a family needs) holding a magic line, the manifest as length-prefixed JSON,
 * then each entry as a length-prefixed JSON header (`{name, size}`) followed by its bytes.
 * The manifest comes first, so a listing reads only the head of each file; gzip's CRC-32 at the
 * end finds a damaged or cut file when it is read to the end (a restore does).
 *
 * Written to a temporary name beside the target and renamed when complete: a backup that
 * failed half-way is never mistaken for one.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";

export const MAGIC = "CAREFLOW-BACKUP\n";
/** A manifest or entry header longer than this is a damaged file, not a real one. */
const MAX_HEADER = 16 * 1024 * 1024;

export class BackupFileError extends Error {}

export interface EntryHeader {
  name: string;
  size: number;
}

/** An entry as written: its bytes at once, or a file read as it is written. */
export type EntrySource = { name: string; bytes: Buffer } | { name: string; file: string; size: number };

const lengthPrefixed = (value: unknown): Buffer => {
  const json = Buffer.from(JSON.stringify(value), "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32BE(json.length);
  return Buffer.concat([len, json]);
};

/**
 * Writes `manifest` and the entries to `target` (through a temporary file, renamed at the end).
 * `entries` is read lazily, one entry at a time, so media is never all in memory; an entry
 * source that yields null is skipped (an object deleted since it was listed).
 */
export async function writeBackupFile(target: string, manifest: object, entries: AsyncIterable<EntrySource | null>): Promise<number> {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(4).toString("hex")}.partial`);
  async function* content(): AsyncGenerator<Buffer> {
    yield Buffer.from(MAGIC, "utf8");
    yield lengthPrefixed(manifest);
    for await (const e of entries) {
      if (!e) continue;
      if ("bytes" in e) {
        yield lengthPrefixed({ name: e.name, size: e.bytes.length } satisfies EntryHeader);
        yield e.bytes;
        continue;
      }
      yield lengthPrefixed({ name: e.name, size: e.size } satisfies EntryHeader);
      let written = 0;
      for await (const chunk of fs.createReadStream(e.file)) {
        written += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      // The size went out in the header: a file that changed under us would misalign everything after it.
      if (written !== e.size) throw new BackupFileError(`${e.name}: ${written} bytes read where ${e.size} were expected`);
    }
  }
  try {
    await pipeline(Readable.from(content()), zlib.createGzip({ level: 6 }), fs.createWriteStream(tmp, { flags: "wx" }));
    await fs.promises.rename(tmp, target);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  return (await fs.promises.stat(target)).size;
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  private buffered: Buffer[] = [];
  private length = 0;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Fills the buffer to `n` bytes; false when the stream ended first. */
  private async fill(n: number): Promise<boolean> {
    while (this.length < n) {
      const next = await this.source.next();
      if (next.done) return false;
      this.buffered.push(next.value);
      this.length += next.value.length;
    }
    return true;
  }

  /** At the end of the stream (nothing buffered, nothing left)? */
  async atEnd(): Promise<boolean> {
    return !(await this.fill(1));
  }

  async take(n: number, what: string): Promise<Buffer> {
    if (!(await this.fill(n))) throw new BackupFileError(`the file ends inside ${what}: it is cut short or not a careflow backup`);
    const all = Buffer.concat(this.buffered);
    this.buffered = all.length > n ? [all.subarray(n)] : [];
    this.length = all.length - n;
    return all.subarray(0, n);
  }

  /** Passes the next `n` bytes to `sink` in chunks, without holding them all. */
  async pass(n: number, what: string, sink: (chunk: Buffer) => Promise<void> | void): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.length === 0 && !(await this.fill(1))) throw new BackupFileError(`the file ends inside ${what}: it is cut short`);
      const head = this.buffered.shift() as Buffer;
      this.length -= head.length;
      if (head.length > left) {
        this.buffered.unshift(head.subarray(left));
        this.length += head.length - left;
        await sink(head.subarray(0, left));
        left = 0;
      } else {
        await sink(head);
        left -= head.length;
      }
    }
  }

  async json<T>(what: string): Promise<T> {
    const len = (await this.take(4, what)).readUInt32BE(0);
    if (len > MAX_HEADER) throw new BackupFileError(`${what} is ${len} bytes long: the file is damaged or not a careflow backup`);
    try {
      return JSON.parse((await this.take(len, what)).toString("utf8")) as T;
    } catch (err) {
      if (err instanceof BackupFileError) throw err;
      throw new BackupFileError(`${what} is not JSON: the file is damaged`);
    }
  }
}

function open(file: string): { reader: ByteReader; close: () => void } {
  const input = fs.createReadStream(file);
  const gunzip = zlib.createGunzip();
  input.on("error", (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  const iterator = (gunzip as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  return {
    reader: new ByteReader(iterator),
    close: () => {
      input.destroy();
      gunzip.destroy();
    },
  };
}

async function readHead<T>(reader: ByteReader): Promise<T> {
  let magic: Buffer;
  try {
    magic = await reader.take(MAGIC.length, "the header");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "Z_DATA_ERROR") throw new BackupFileError("not a careflow backup (not gzip)");
    throw err;
  }
  if (magic.toString("utf8") !== MAGIC) throw new BackupFileError("not a careflow backup (its first line is not CAREFLOW-BACKUP)");
  return reader.json<T>("the manifest");
}

const readable = (err: unknown): never => {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "Z_DATA_ERROR" || code === "Z_BUF_ERROR") throw new BackupFileError("the file is damaged (its compressed data does not check out)");
  throw err;
};

/** The manifest alone (the head of the file). */
export async function readManifest<T>(file: string): Promise<T> {
  const { reader, close } = open(file);
  try {
    return await readHead<T>(reader).catch(readable);
  } finally {
    close();
  }
}

/**
 * Reads the whole file: the manifest, then each entry handed to `onEntry` with a function that
 * passes its bytes on in chunks (an entry whose bytes are not taken is skipped). Throws on a
 * damaged file, including at the very end (gzip's checksum).
 */
export async function readBackupFile<T>(
  file: string,
  onManifest: (manifest: T) => Promise<void> | void,
  onEntry: (header: EntryHeader, read: (sink: (chunk: Buffer) => Promise<void> | void) => Promise<void>) => Promise<void>,
): Promise<void> {
  const { reader, close } = open(file);
  try {
    await onManifest(await readHead<T>(reader));
    while (!(await reader.atEnd())) {
      const header = await reader.json<EntryHeader>("an entry's header");
      if (typeof header?.name !== "string" || !Number.isSafeInteger(header.size) || header.size < 0)
        throw new BackupFileError("an entry's header names no entry: the file is damaged");
      let taken = false;
      await onEntry(header, async (sink) => {
        taken = true;
        await reader.pass(header.size, header.name, sink);
      });
      if (!taken) await reader.pass(header.size, header.name, () => undefined);
    }
  } catch (err) {
    readable(err);
  } finally {
    close();
  }
}
