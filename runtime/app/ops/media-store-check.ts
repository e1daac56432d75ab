/** Where this start keeps its media, said in the log before anything is stored. */
import path from "node:path";
import type { AppContext } from "../context";
import { s3Location } from "../../household/media/s3-client";
import { s3Problem } from "../../household/media/s3-objects";
import { mediaRoot } from "../../household/media/media-root";

export async function checkMediaStore(ctx: AppContext): Promise<void> {
  const { settings, log } = ctx;
  // An S3-compatible media store (s3-objects.ts) that does not answer yet is no reason not to
  // start: frames and clips fail with 503 until it does, and the rest of the household runs.
  if (settings.media.store_url) {
    const problem = await s3Problem(settings.media);
    if (problem) log.warn(`media: ${problem}; frames and speech clips cannot be stored until it answers`);
    else log.info(`media: kept in the S3-compatible store at ${s3Location(settings.media.store_url, settings.media.store_region, 1).where}`);
  }
  // Which folder of the data dir is this store's media (media-root.ts), decided before anything is stored.
  else if (!settings.cluster.enabled) {
    const media = await mediaRoot(ctx.db, ctx.dataDir);
    if (media.dir !== ctx.dataDir)
      log.warn(
        { folder: path.relative(ctx.dataDir, media.dir), owner: media.guest_of ?? "a store from before the marker" },
        "media: this data dir belongs to another store; this one keeps its media in its own folder and never touches the other's",
      );
  }
}
