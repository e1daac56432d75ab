/**
 * `GET /api/v1/media/{object_name}?expires=…&sig=…`: a stored frame for whoever holds a signed
 * URL (a speaker, a chat server), without an API key: the signature is the credential, so
 * `api-v1.ts` mounts this router before the key check. 403 for a missing, wrong or expired
 * signature (checked before anything else, so object names cannot be probed), 404 for an
 * object no row stores.
 */
import { Router } from "express";
import type { PlatformContext } from "../../platform/context";
import { queryGuard } from "../../platform/http/json-body";
import { route } from "../../platform/http/route";
import { openSignedObject } from "./media.service";
import { openSpeechClip } from "./speech-clips";

export function mediaRouter(ctx: PlatformContext): Router {
  const r = Router();
  // A spoken message for a hub speaker (speech-clips.ts); before the frames' route.
  r.get(
    "/media/speech/:clip_name",
    queryGuard,
    route(async (req, res) => {
      const clip = await openSpeechClip(ctx, req.params.clip_name ?? "", { expires: req.query.expires, sig: req.query.sig });
      res.status(200);
      res.setHeader("Content-Type", clip.content_type);
      res.setHeader("Content-Length", String(clip.data.length));
      res.setHeader("Cache-Control", `private, max-age=${clip.valid_for}`);
      res.end(clip.data);
    }),
  );
  r.get(
    "/media/:object_name",
    queryGuard,
    route(async (req, res) => {
      const object = await openSignedObject(ctx, req.params.object_name ?? "", { expires: req.query.expires, sig: req.query.sig });
      res.status(200);
      res.setHeader("Content-Type", object.content_type);
      res.setHeader("Content-Length", String(object.data.length));
      res.setHeader("Cache-Control", `private, max-age=${object.valid_for}`);
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.end(object.data);
    }),
  );
  return r;
}
