// Which compiled test files can reach the store: those whose require graph (dist/, relative
// requires) reaches the store module or the support that starts an app or a service process.
// The PostgreSQL pass of CI runs only these: the others never open a database, so their result
// is the same on either store, and the SQLite pass has them already.
const fs = require("node:fs");
const path = require("node:path");

const STORE_MODULES = [/dist[\\/]runtime[\\/]platform[\\/]db[\\/]store\.js$/, /dist[\\/]test[\\/]support[\\/](service-process|test-run|test-app)\.js$/];

const requiresCache = new Map();
const reaching = new Set();

function requiresOf(file) {
  const hit = requiresCache.get(file);
  if (hit) return hit;
  const out = [];
  for (const m of fs.readFileSync(file, "utf8").matchAll(/require\("(\.{1,2}\/[^"]+)"\)/g)) {
    const base = path.resolve(path.dirname(file), m[1]);
    const candidate = [base, `${base}.js`, path.join(base, "index.js")].find((p) => p.endsWith(".js") && fs.existsSync(p));
    if (candidate) out.push(candidate);
  }
  requiresCache.set(file, out);
  return out;
}

// Only "reaches" is remembered across files: a "no" found inside a require cycle may be partial.
function reachesStore(file, seen = new Set()) {
  if (reaching.has(file) || STORE_MODULES.some((re) => re.test(file))) return true;
  if (seen.has(file)) return false;
  seen.add(file);
  const yes = requiresOf(file).some((dep) => reachesStore(dep, seen));
  if (yes) reaching.add(file);
  return yes;
}

function testFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith(".test.js") ? [p] : [];
  });
}

/** The compiled test files under `root` (dist/test) that can reach the store, sorted. */
function storeTestFiles(root) {
  return testFiles(root)
    .filter((f) => reachesStore(path.resolve(f)))
    .sort();
}

/** Every compiled test file under `root`, sorted. */
const allTestFiles = (root) => testFiles(root).sort();

module.exports = { storeTestFiles, allTestFiles };
