/**
 * Reading a media path as triggers carry them (`media_paths`, relative to the data dir): a
 * path that names one of the store's objects is read from the media store (so any instance
 * reads a frame another stored); any other path (a file put there by hand) from this box's disk.
 */
import fs from "node:fs/promises";
import { ServiceUnavailableError } from "../../platform/core/errors";
import type { Logger } from "../../platform/core/logger";
import { objectNameOf } from "./frame-views";
import { mediaFilePath, objectPath } from "./media.service";
import { mediaObjects, type MediaObjectsContext } from "./media-objects";

/**
 * The bytes, or null when there are none to read: a media store that is down (an S3 store
 * unreachable) degrades a step to "no image" with a warning, as the spec has perception degrade.
 */
export async function readMediaPath(ctx: MediaObjectsContext & { log?: Logger }, mediaPath: string): Promise<Buffer | null> {
  const name = objectNameOf(ctx.dataDir, mediaPath);
  if (name)
    return mediaObjects(ctx)
      .get(objectPath(name))
      .catch((err: unknown) => {
        if (!(err instanceof ServiceUnavailableError)) throw err;
        ctx.log?.warn({ object: name }, err.message);
        return null;
      });
  return fs.readFile(mediaFilePath(ctx.dataDir, mediaPath)).catch(() => null);
}
