/**
 * A cache of where `require` found each module, kept from one start to the next. Start-up
 * asks Node's CommonJS loader to resolve ~4,500 requests to ~1,900 files, and each resolution
 * stats candidate files and reads `package.json` files on the way: about a fifth of a start
 * (issue 29, measured by timing `Module._resolveFilename`). Here a request already resolved
 * at an earlier start, from the same folder, takes the same file.
 *
 * A resolution changes only when files appear or go, or Node looks elsewhere: the cache holds a
 * stamp of the dependencies' install (npm rewrites `node_modules/.package-lock.json` on every
 * install), of the build (`dist/.build-stamp`, written by `npm run build`), of the Node version,
 * its flags and `NODE_PATH`, and is dropped whole when any differs. A request it does not know goes to Node as before.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off with the compiled-code cache.
 */
import fs from "node:fs";
import nodeModule from "node:module";
import path from "node:path";
import { readCacheFile, saveQuietly, START_CACHE_DIR, writeCacheFile } from "./start-cache-file";

/** The part of Node's CommonJS loader this uses (stable since Node 12, not in the typings). */
interface Resolver {
  _resolveFilename(request: string, parent: { path?: string } | undefined, isMain: boolean, options?: unknown): string;
}

const loader = nodeModule as unknown as Resolver;
/** dist/runtime/app → the repository. */
const REPO = path.resolve(__dirname, "../../..");
/** A file past this is not read: something else wrote it. */
const MAX_BYTES = 16 * 1024 * 1024;

interface Saved {
  stamp: string;
  resolved: Record<string, string>;
}

const mtimeOf = (file: string): string => {
  try {
    return String(fs.statSync(file).mtimeMs);
  } catch {
    return "none";
  }
};

/**
 * What the cache is valid for: this Node and its flags (`--conditions` changes which file a
 * package exports), `NODE_PATH`, this install of the dependencies, this build.
 */
export function resolutionStamp(repo = REPO): string {
  return JSON.stringify([
    process.version,
    process.arch,
    process.execArgv,
    process.env.NODE_PATH ?? "",
    mtimeOf(path.join(repo, "node_modules", ".package-lock.json")),
    mtimeOf(path.join(repo, "dist", ".build-stamp")),
  ]);
}

function readSaved(file: string, stamp: string): Map<string, string> {
  const bytes = readCacheFile(file, MAX_BYTES);
  if (!bytes) return new Map();
  try {
    const saved = JSON.parse(bytes.toString("utf8")) as Saved;
    if (saved.stamp !== stamp || typeof saved.resolved !== "object" || saved.resolved === null) return new Map();
    return new Map(Object.entries(saved.resolved).filter((e): e is [string, string] => typeof e[1] === "string"));
  } catch {
    return new Map(); // absent or damaged: Node resolves everything, as without a cache
  }
}

export interface ResolveCacheStats {
  hits: number;
  misses: number;
}

class ResolveCache {
  readonly stats: ResolveCacheStats = { hits: 0, misses: 0 };
  private readonly resolved: Map<string, string>;

  constructor(
    readonly file: string,
    private readonly stamp: string,
  ) {
    this.resolved = readSaved(file, stamp);
  }

  install(): void {
    const nodeResolve = loader._resolveFilename;
    const resolve = (request: string, parent: { path?: string } | undefined, isMain: boolean, options: unknown): string => {
      // `require.resolve(x, { paths })` looks elsewhere than the parent's folder: Node's own.
      if (options !== undefined || isMain || typeof parent?.path !== "string") return nodeResolve.call(loader, request, parent, isMain, options);
      const key = `${parent.path}\u0000${request}`;
      const hit = this.resolved.get(key);
      if (hit !== undefined) {
        this.stats.hits++;
        return hit;
      }
      const filename = nodeResolve.call(loader, request, parent, isMain, options);
      this.stats.misses++;
      this.resolved.set(key, filename);
      return filename;
    };
    loader._resolveFilename = resolve;
  }

  /** Writes what is known when anything was resolved afresh, whole and renamed into place. */
  save(): void {
    if (this.stats.misses === 0) return;
    const saved: Saved = { stamp: this.stamp, resolved: Object.fromEntries(this.resolved) };
    writeCacheFile(this.file, JSON.stringify(saved));
  }
}

let installed: ResolveCache | null = null;

/** Turns the cache on (another `file` and `stamp` for tests); false when it is on already. */
export function installResolveCache(file = path.join(START_CACHE_DIR, "resolved.json"), stamp = resolutionStamp()): boolean {
  if (installed) return false;
  installed = new ResolveCache(file, stamp);
  installed.install();
  return true;
}

/** Keeps the resolutions for the next start; a cache that cannot be written is no failure. */
export function saveResolveCache(): ResolveCacheStats | null {
  return saveQuietly(installed);
}

if (process.env.NODE_DISABLE_COMPILE_CACHE !== "1") installResolveCache();
