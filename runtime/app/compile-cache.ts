/**
 * A cache of V8's compiled code for the modules `npm start` loads, turned on before anything
 * else is required. Start-up is mostly loading ~1,900 modules, and compiling them is a large
 * part of it (issue 29's profiles). Node 22.1 and later have this built in
 * (`module.enableCompileCache`), used when present. On Node 20, CommonJS modules are compiled
 * here as Node compiles them (the same wrapper, `require`, `module`, `__filename`,
 * `__dirname`), with V8's code cache from the last start; `saveCompileCache` writes it once
 * the service is up, so it holds the functions start-up ran, not only the top levels.
 *
 * What is left to Node, unchanged: ES modules (and CommonJS that `require` turns into one), and
 * any file that calls `import()`, because a script built from cached code loses the hook
 * `import()` needs. A file whose text changed since the cache was written (checked by its
 * hash) is compiled afresh. The cache is one file per Node version beside the build, written
 * whole and renamed into place, so instances starting together never read half of one.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as it does Node's own.
 */
import crypto from "node:crypto";
import nodeModule from "node:module";
import path from "node:path";
import vm from "node:vm";
import { readCacheFile, saveQuietly, START_CACHE_DIR, writeCacheFile } from "./start-cache-file";

/** The parts of Node's CommonJS loader this uses: stable since Node 12, not in the typings. */
interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
}
interface CjsLoader {
  prototype: { _compile(this: CjsModule, content: string, filename: string, format?: string): unknown };
  wrap(content: string): string;
  _resolveFilename(request: string, parent: CjsModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: CjsModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
  enableCompileCache?: () => unknown;
}

const loader = nodeModule as unknown as CjsLoader;
/** The process's main module, as Node gives every module's `require.main`. */
const mainModule = require.main;
/** A file past this is not read: something else wrote it. */
const MAX_BYTES = 256 * 1024 * 1024;
const DYNAMIC_IMPORT = /\bimport\s*\(/;

interface Entry {
  hash: string;
  data: Buffer;
}

interface Compiled {
  hash: string;
  script: vm.Script;
}

const hashOf = (text: string): string => crypto.createHash("sha1").update(text).digest("base64");

/** The cache as the last start left it: filename → hash of the source, code. Empty when absent or unreadable. */
function readCache(file: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const bytes = readCacheFile(file, MAX_BYTES);
  if (!bytes) return entries;
  try {
    const metaLength = bytes.readUInt32LE(0);
    const meta = JSON.parse(bytes.subarray(4, 4 + metaLength).toString("utf8")) as Array<[string, string, number]>;
    let at = 4 + metaLength;
    for (const [filename, hash, length] of meta) {
      entries.set(filename, { hash, data: bytes.subarray(at, at + length) });
      at += length;
    }
  } catch {
    entries.clear(); // absent or damaged: every module compiles as without a cache
  }
  return entries;
}

export interface CompileCacheStats {
  hits: number;
  compiled: number;
  rejected: number;
  leftToNode: number;
}

class CodeCache {
  readonly stats: CompileCacheStats = { hits: 0, compiled: 0, rejected: 0, leftToNode: 0 };
  private readonly cached: Map<string, Entry>;
  /** What this start compiled, until it is saved (null after: later modules are not start-up's). */
  private compiledHere: Map<string, Compiled> | null = new Map();

  constructor(readonly file: string) {
    this.cached = readCache(file);
  }

  install(): void {
    const nodeCompile = loader.prototype._compile;
    const compile = (module: CjsModule, content: string, filename: string, format?: string): unknown => {
      const script = format === "module" || filename.endsWith(".mjs") || DYNAMIC_IMPORT.test(content) ? null : this.script(content, filename);
      if (!script) {
        this.stats.leftToNode++;
        return nodeCompile.call(module, content, filename, format);
      }
      return this.run(module, script, filename);
    };
    loader.prototype._compile = function (this: CjsModule, content: string, filename: string, format?: string): unknown {
      return compile(this, content, filename, format);
    };
  }

  /** The module's wrapper compiled with the cached code when it still matches; null when V8 will not take the text as a script. */
  private script(content: string, filename: string): vm.Script | null {
    // A leading `#!` line is a comment to Node; inside the wrapper it would not be.
    const source = content.startsWith("#!") ? `//${content}` : content;
    const hash = hashOf(source);
    const hit = this.cached.get(filename);
    const cachedData = hit?.hash === hash ? hit.data : undefined;
    let script: vm.Script;
    try {
      script = new vm.Script(loader.wrap(source), { filename, cachedData });
    } catch {
      return null; // ES module syntax in a .js file: Node knows what to do with it
    }
    if (cachedData && !script.cachedDataRejected) this.stats.hits++;
    else {
      if (cachedData) this.stats.rejected++;
      this.stats.compiled++;
    }
    this.compiledHere?.set(filename, { hash, script });
    return script;
  }

  /** Runs the wrapper as Node does, with a `require` built as Node builds it. */
  private run(module: CjsModule, script: vm.Script, filename: string): unknown {
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const moduleRequire = Object.assign((id: string) => module.require(id), {
      resolve: Object.assign((request: string, options?: unknown) => loader._resolveFilename(request, module, false, options), {
        paths: (request: string) => loader._resolveLookupPaths(request, module),
      }),
      main: mainModule,
      extensions: loader._extensions,
      cache: loader._cache,
    });
    return wrapper.call(module.exports, module.exports, moduleRequire, module, filename, path.dirname(filename));
  }

  /** Writes the code of every module compiled so far, when any was compiled afresh; then lets the scripts go. */
  save(): void {
    const compiled = this.compiledHere;
    this.compiledHere = null;
    this.cached.clear(); // start-up is over: the cache file's ~6 MB need not stay in memory
    if (!compiled || (this.stats.compiled === 0 && this.stats.rejected === 0)) return;
    const meta: Array<[string, string, number]> = [];
    const blobs: Buffer[] = [];
    for (const [filename, { hash, script }] of compiled) {
      const data = script.createCachedData();
      meta.push([filename, hash, data.length]);
      blobs.push(data);
    }
    const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
    const head = Buffer.alloc(4);
    head.writeUInt32LE(metaBytes.length);
    writeCacheFile(this.file, Buffer.concat([head, metaBytes, ...blobs]));
  }
}

let installed: CodeCache | null = null;

/** Where the cache is kept: beside the build, one file per Node version (`CAREFLOW_COMPILE_CACHE_FILE` for tests). */
const cacheFile = (): string => process.env.CAREFLOW_COMPILE_CACHE_FILE || path.join(START_CACHE_DIR, `v8-${process.version}-${process.arch}.bin`);

/** Turns the cache on. Returns false when Node's own cache or the switch-off took its place. */
export function installCompileCache(file = cacheFile()): boolean {
  if (installed || process.env.NODE_DISABLE_COMPILE_CACHE === "1") return false;
  if (loader.enableCompileCache) {
    loader.enableCompileCache();
    return false;
  }
  installed = new CodeCache(file);
  installed.install();
  return true;
}

/** Keeps the compiled code for the next start (after the service is up); a cache that cannot be written is no failure. */
export function saveCompileCache(): CompileCacheStats | null {
  return saveQuietly(installed);
}

installCompileCache();
