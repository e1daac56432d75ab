/**
 * `npm start` runs the build in `dist/` as it is and compiles nothing (a box starts in a
 * second, not after a compile). A developer who changed a source and forgot to build would
 * otherwise run yesterday's code without knowing it: this says so at start, naming the
 * newest source that the build is older than. A handful of directory walks, a few ms.
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

function newestTs(p: string, best: { file: string; mtime: number }): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return;
  }
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(p)) newestTs(path.join(p, name), best);
  } else if (p.endsWith(".ts") && st.mtimeMs > best.mtime) {
    best.file = p;
    best.mtime = st.mtimeMs;
  }
}

/** Null when the build is current (or there are no sources to compare with), else why it is stale. */
export function staleBuildReason(repo = REPO, dist = DIST): string | null {
  let builtAt: number;
  try {
    builtAt = fs.statSync(path.join(dist, STAMP)).mtimeMs;
  } catch {
    return "dist/ holds no complete build";
  }
  const newest = { file: "", mtime: 0 };
  for (const s of SOURCES) newestTs(path.join(repo, s), newest);
  return newest.mtime > builtAt ? `${path.relative(repo, newest.file)} changed after the last build` : null;
}

/** The build's last step: marks when it finished. */
export function writeBuildStamp(dist = DIST): void {
  fs.writeFileSync(path.join(dist, STAMP), `${new Date().toISOString()}\n`);
}

if (require.main === module) writeBuildStamp();
