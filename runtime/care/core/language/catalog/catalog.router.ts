import { Router } from "express";
import type { CareContext } from "../../context";
import { route } from "../../../../platform/http/route";
import { channelTypes, dataKeys, filterTypes, stepTypes } from "./catalog.service";

export function catalogRouter(_ctx: CareContext): Router {
  const r = Router();
  r.get(
    "/pipeline/step-types",
    route(() => stepTypes()),
  );
  r.get(
    "/pipeline/filter-types",
    route(() => filterTypes()),
  );
  r.get(
    "/pipeline/channel-types",
    route(() => channelTypes()),
  );
  r.get(
    "/pipeline/data-keys",
    route(() => ({ keys: dataKeys(), total: dataKeys().length })),
  );
  return r;
}
