/**
 * The single-box media store: each object a file under the data dir at its name, written
 * atomically (a temporary file, then a rename) so a reader never sees half of one; its mtime
 * is when it was last put. Leftover temporary files are listed too, so a sweep removes them.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { MediaObjectStore, ObjectStat } from "./object-store";

const SHARD = /^[0-9a-f]{2}$/;
const SAFE_NAME = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;

export function fsObjects(dataDir: string): MediaObjectStore {
  const fileOf = (name: string): string => {
    // Names come from our own code and rows; the check keeps a bad one from leaving the data dir.
    if (!SAFE_NAME.test(name) || name.split("/").some((s) => s === "..")) throw new Error(`not a media object name: ${name.slice(0, 80)}`);
    return path.join(dataDir, ...name.split("/"));
  };
  const statOf = async (name: string): Promise<ObjectStat | null> => {
    const st = await fs.stat(fileOf(name)).catch(() => null);
    return st?.isFile() ? { name, size: st.size, modified_ms: st.mtimeMs } : null;
  };
  return {
    async put(name, bytes, nowMs) {
      const full = fileOf(name);
      const now = new Date(nowMs);
      const existing = await fs.stat(full).catch(() => null);
      if (existing?.isFile() && existing.size === bytes.length) {
        await fs.utimes(full, now, now);
        return;
      }
      await fs.mkdir(path.dirname(full), { recursive: true });
      const tmp = path.join(path.dirname(full), `.${path.basename(full)}.${randomBytes(6).toString("hex")}.tmp`);
      try {
        await fs.writeFile(tmp, bytes, { flag: "wx" });
        await fs.utimes(tmp, now, now);
        await fs.rename(tmp, full);
      } catch (err) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
    },
    async get(name) {
      return fs.readFile(fileOf(name)).catch(() => null);
    },
    stat: statOf,
    async list(prefix) {
      const out: ObjectStat[] = [];
      const walk = async (rel: string): Promise<void> => {
        const entries = await fs.readdir(path.join(dataDir, ...rel.split("/").filter(Boolean)), { withFileTypes: true }).catch(() => []);
        for (const e of entries) {
          // A file put there by hand under a name no object has is not the store's.
          if (!SAFE_NAME.test(e.name)) continue;
          if (e.isDirectory()) await walk(`${rel}${e.name}/`);
          else if (e.isFile()) {
            const st = await statOf(`${rel}${e.name}`);
            if (st) out.push(st);
          }
        }
      };
      await walk(prefix.endsWith("/") ? prefix : `${prefix}/`);
      return out;
    },
    async delete(name, unlessPutAfter) {
      const full = fileOf(name);
      if (unlessPutAfter !== undefined) {
        const st = await fs.stat(full).catch(() => null);
        if (!st?.isFile() || st.mtimeMs > unlessPutAfter) return false;
      }
      await fs.rm(full, { force: true });
      // An emptied shard folder (`ab/cd/`) goes too; rmdir refuses one that is not empty.
      for (let dir = path.dirname(full); SHARD.test(path.basename(dir)); dir = path.dirname(dir)) {
        if (
          !(await fs.rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
      return true;
    },
  };
}
