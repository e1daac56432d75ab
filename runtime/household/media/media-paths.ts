/**
 * Reading a media path as triggers carry them (`media_paths`, relative to the data dir): a
 * path that names one of the store's objects is read from the media store (so any instance
 * reads a frame another stored); any other path (a file put there by hand) from this box's disk.
 */
import fs from "node:fs/promises";
import { objectNameOf } from "./frame-views";
import { mediaFilePath, objectPath } from "./media.service";
import { mediaObjects, type MediaObjectsContext } from "./media-objects";

/** The bytes, or null when there are none to read. */
export async function readMediaPath(ctx: MediaObjectsContext, mediaPath: string): Promise<Buffer | null> {
  const name = objectNameOf(ctx.dataDir, mediaPath);
  if (name) return mediaObjects(ctx).get(objectPath(name));
  return fs.readFile(mediaFilePath(ctx.dataDir, mediaPath)).catch(() => null);
}
