/**
 * The files the README's examples write in the checkout (`> hub.json`, `-o card.png`,
 * `toFile("photo.jpg")`) are ignored by git, so trying the README leaves `git status` clean.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");

/** Every file name a README command writes: redirections, curl's -o, sharp's toFile. */
export function writtenFiles(readme: string): string[] {
  const names = new Set<string>();
  const patterns = [/>\s?([\w.-]+\.(?:json|jpg|png|mp3|wav|yaml))\b/g, /-o ([\w.-]+\.\w+)/g, /toFile\("([^"]+)"\)/g];
  for (const re of patterns) for (const m of readme.matchAll(re)) names.add(m[1]);
  // A name built in a loop (`rose${i + 1}.jpg`) stands for its first and its fifth.
  for (const m of readme.matchAll(/toFile\(`([\w.-]*)\$\{[^}]+\}([\w.-]*)`\)/g)) for (const n of [1, 5]) names.add(`${m[1]}${n}${m[2]}`);
  return [...names].sort();
}

function gitAvailable(): boolean {
  try {
    execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: ROOT, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("README: the files its examples write are ignored by git", () => {
  it("finds them and git ignores every one", function () {
    if (!gitAvailable()) {
      console.log("    (skipped: not a git checkout)");
      return this.skip();
    }
    const files = writtenFiles(fs.readFileSync(path.join(ROOT, "README.md"), "utf8"));
    for (const f of ["photo.jpg", "card.png", "hub.json", "rose1.jpg", "garden.jpg"]) assert.ok(files.includes(f), `the scan finds ${f}`);
    const notIgnored = files.filter((f) => {
      try {
        execFileSync("git", ["check-ignore", "-q", "--no-index", f], { cwd: ROOT, stdio: "ignore" });
        return false;
      } catch {
        return true;
      }
    });
    assert.deepEqual(notIgnored, [], `add these to .gitignore: ${notIgnored.join(", ")}`);
  });
});
