/** Reading a stored original back from the media store (to render it again). */
import { ConflictError } from "../../../../platform/core/errors";
import { objectPath } from "../../../../household/media/media.service";
import { mediaObjects, type MediaObjectsContext } from "../../../../household/media/media-objects";

export async function readOriginal(ctx: MediaObjectsContext, objectName: string): Promise<Buffer> {
  const bytes = await mediaObjects(ctx).get(objectPath(objectName));
  if (!bytes) throw new ConflictError(`The picture ${objectName} is no longer in the media store; set the slot again`);
  return bytes;
}
