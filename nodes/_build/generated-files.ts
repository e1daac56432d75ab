/** Writing a set of generated files, removing the ones of a previous run that are gone. */
import fs from "node:fs";
import path from "node:path";

/** Files under `dir` (relative to root) whose relative path matches `pattern`. */
export function generatedFiles(root: string, dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else if (pattern.test(r.split(path.sep).join("/"))) out.push(r);
    }
  };
  walk(dir);
  return out;
}

export function writeGenerated(root: string, files: Map<string, string>, previous: readonly string[]): void {
  for (const old of previous) if (!files.has(old)) fs.rmSync(path.join(root, old));
  for (const [rel, text] of files) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    if (!fs.existsSync(abs) || fs.readFileSync(abs, "utf8") !== text) fs.writeFileSync(abs, text);
  }
}
