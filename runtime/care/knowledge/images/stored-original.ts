/** Reading a stored original back from the media store (to render it again). */
import fs from "node:fs/promises";
import path from "node:path";
import { ConflictError } from "../../../platform/core/errors";
import { objectPath } from "../../../household/media/media.service";

export async function readOriginal(dataDir: string, objectName: string): Promise<Buffer> {
  try {
    return await fs.readFile(path.join(dataDir, objectPath(objectName)));
  } catch {
    throw new ConflictError(`The picture ${objectName} is no longer in the media store; set the slot again`);
  }
}
