/** Name and version of this build, read once from package.json. */
import fs from "node:fs";
import path from "node:path";

export interface PackageInfo {
  name: string;
  version: string;
}

let cached: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (!cached) {
    // dist/runtime/ops → repo root, or runtime/ops when run from sources.
    const candidates = [path.resolve(__dirname, "../../../../package.json"), path.resolve(__dirname, "../../../package.json")];
    const file = candidates.find((f) => fs.existsSync(f));
    const pkg = file ? (JSON.parse(fs.readFileSync(file, "utf8")) as PackageInfo) : { name: "careflow", version: "0.0.0" };
    cached = { name: pkg.name, version: pkg.version };
  }
  return cached;
}
