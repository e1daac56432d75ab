/**
 * Reading a camera frame a trigger named, by its path relative to the data dir. A path that
 * leads out of the data dir, or a file that cannot be read, gives null (the step says so).
 */
import fs from "node:fs/promises";
import path from "node:path";

export async function readMediaFile(dataDir: string, relative: string): Promise<Uint8Array | null> {
  const root = path.resolve(dataDir);
  const full = path.resolve(root, relative);
  if (full !== root && !full.startsWith(root + path.sep)) return null;
  try {
    return await fs.readFile(full);
  } catch {
    return null;
  }
}
