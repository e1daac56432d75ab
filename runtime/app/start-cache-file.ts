/**
 * The files start-up's caches keep beside the build (compile-cache.ts, resolve-cache.ts): where
 * they are, read only when of a sane size, written whole and renamed into place so a start
 * never reads half of one, and saved without ever failing the service.
 */
import fs from "node:fs";
import path from "node:path";

/** dist/.compile-cache: a new build or a clean checkout starts without it. */
export const START_CACHE_DIR = path.resolve(__dirname, "../../.compile-cache");

/** The file's bytes; null when absent, unreadable or over `maxBytes` (something else wrote it). */
export function readCacheFile(file: string, maxBytes: number): Buffer | null {
  try {
    return fs.statSync(file).size > maxBytes ? null : fs.readFileSync(file);
  } catch {
    return null;
  }
}

/** Writes the file whole: to a temporary name first, then renamed over the old one. */
export function writeCacheFile(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, data);
  fs.renameSync(temp, file);
}

/** Saves a cache for the next start and returns its figures; a cache that cannot be written (read-only install, full disk) is no failure. */
export function saveQuietly<S>(cache: { save(): void; readonly stats: S } | null): S | null {
  if (!cache) return null;
  try {
    cache.save();
  } catch {
    // the next start works as without a cache
  }
  return cache.stats;
}
