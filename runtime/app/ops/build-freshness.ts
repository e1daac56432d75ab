/**
 * `npm start` runs the build in `dist/` as it is and compiles nothing (a box starts in a
 * second, not after a compile). A developer who changed a source and forgot to build would
 * otherwise run yesterday's code without knowing it: this says so at start, naming the
 * newest source that the build is older than.
 */
import fs from "node:fs";
import path from "node:path";

/** dist/runtime/app/ops → the repository. */
const REPO = path.resolve(__dirname, "../../../..");
const DIST = path.join(REPO, "dist");
/**
 * Written by the build's last step (`npm run build` runs this file): when the build finished.
 * tsc's own `.tsbuildinfo` files are no clock: `tsc -b` leaves them alone when nothing it
 * compiles changed, so a touched source would look newer than the build for ever.
 */
const STAMP = ".build-stamp";
/** The sources the running service is compiled from (tests and benchmarks are not run by `npm start`). */
const SOURCES = ["settings.ts", "runtime", "nodes", "editor-plugins", "webapp/browser", "tts"];

/** The newest `.ts` file under `p` (a file or a folder), its stats asked all at once. */
async function newestTs(p: string): Promise<{ file: string; mtime: number }> {
  const none = { file: "", mtime: 0 };
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(p);
  } catch {
    return none;
  }
  if (!st.isDirectory()) return p.endsWith(".ts") ? { file: p, mtime: st.mtimeMs } : none;
  const names = await fs.promises.readdir(p).catch(() => []);
  const found = await Promise.all(names.map((name) => newestTs(path.join(p, name))));
  return found.reduce((best, f) => (f.mtime > best.mtime ? f : best), none);
}

/**
 * Null when the build is current (or there are no sources to compare with), else why it is
 * stale. Asynchronous: the stats run on libuv's threads while the service starts (a walk
 * of ~900 files was 20-35 ms of the start on a small box when it ran first and in turn).
 */
export async function staleBuildReason(repo = REPO, dist = DIST): Promise<string | null> {
  let builtAt: number;
  try {
    builtAt = (await fs.promises.stat(path.join(dist, STAMP))).mtimeMs;
  } catch {
    return "dist/ holds no complete build";
  }
  const found = await Promise.all(SOURCES.map((s) => newestTs(path.join(repo, s))));
  const newest = found.reduce((best, f) => (f.mtime > best.mtime ? f : best));
  return newest.mtime > builtAt ? `${path.relative(repo, newest.file)} changed after the last build` : null;
}

/** The build's last step: marks when it finished. */
export function writeBuildStamp(dist = DIST): void {
  fs.writeFileSync(path.join(dist, STAMP), `${new Date().toISOString()}\n`);
}

if (require.main === module) writeBuildStamp();
