import { Router } from "express";
import type { PlatformContext } from "../../platform/context";
import { reply, route } from "../../platform/http/route";
import { alertProfiles } from "./alert-presets";
import { createPerson, deletePerson, getPerson, listPersons, updatePerson } from "./persons.service";

export function personsRouter(ctx: PlatformContext): Router {
  const r = Router();
  r.get(
    "/persons",
    route(() => listPersons(ctx)),
  );
  r.post(
    "/persons",
    route(async (req) => reply(201, await createPerson(ctx, req.body))),
  );
  // The spec's alert profile presets, for a page or script filling `cts_alert_config`.
  r.get(
    "/persons/alert-profiles",
    route(() => alertProfiles()),
  );
  // Fixed routes before `/persons/:id` (their names are reserved person ids, RESERVED_PERSON_IDS);
  // `/persons/locations` is tracking's (tracking.router.ts), `/persons/enrolled` identity's
  // (identity.router.ts): both are mounted before this router.
  r.get(
    "/persons/:id",
    route((req) => getPerson(ctx, req.params.id)),
  );
  r.patch(
    "/persons/:id",
    route((req) => updatePerson(ctx, req.params.id, req.body)),
  );
  r.delete(
    "/persons/:id",
    route(async (req) => void (await deletePerson(ctx, req.params.id))),
  );
  return r;
}
