/**
 * Reading a camera frame a trigger named, by its path relative to the data dir (from the media
 * store when it names one of its objects). A path that leads out of the data dir, or bytes
 * that cannot be read, give null (the step says so).
 */
import path from "node:path";
import { readMediaPath } from "../../../household/media/media-paths";
import type { MediaObjectsContext } from "../../../household/media/media-objects";

export async function readMediaFile(ctx: MediaObjectsContext, relative: string): Promise<Uint8Array | null> {
  const root = path.resolve(ctx.dataDir);
  const full = path.resolve(root, relative);
  if (full !== root && !full.startsWith(root + path.sep)) return null;
  return readMediaPath(ctx, relative);
}
