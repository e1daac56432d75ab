/** Routes of the spec's Rules table; each translates HTTP to one service call. */
import { Router, type Request } from "express";
import type { CareContext } from "../context";
import { intParam } from "../../../platform/http/params";
import { reply, route } from "../../../platform/http/route";
import { addContext, deleteContext, listContexts } from "./contexts.service";
import { addDependency, deleteDependency, listRuleDependencies } from "./dependencies.service";
import { listEdges, replaceEdges } from "./edges.service";
import { getRuleDetail, listRules } from "./rule-read";
import { createRule, deleteRule, updateRule } from "./rules.service";
import { validateRule } from "./validate.service";
import { addStep, deleteStep, listSteps, reorderSteps, setPositions, updateStep } from "./steps.service";

const admin = (req: Request): boolean => req.principal?.kind === "api" && req.principal.isAdmin;

export function rulesRouter(ctx: CareContext): Router {
  const r = Router();
  const rule = (req: Request) => intParam(req, "id", "Rule");
  const step = (req: Request) => intParam(req, "step_id", "Step");

  r.get(
    "/rules",
    route((req) => listRules(ctx, admin(req))),
  );
  r.post(
    "/rules",
    route(async (req) => reply(201, await createRule(ctx, req.body))),
  );
  r.get(
    "/rules/:id",
    route((req) => getRuleDetail(ctx, rule(req), admin(req))),
  );
  r.put(
    "/rules/:id",
    route((req) => updateRule(ctx, rule(req), req.body)),
  );
  r.delete(
    "/rules/:id",
    route(async (req) => void (await deleteRule(ctx, rule(req)))),
  );

  r.get(
    "/rules/:id/steps",
    route((req) => listSteps(ctx, rule(req))),
  );
  r.post(
    "/rules/:id/steps",
    route(async (req) => reply(201, await addStep(ctx, rule(req), req.body))),
  );
  // Fixed paths before `:step_id`, so `reorder` is never read as a step id.
  r.put(
    "/rules/:id/steps/reorder",
    route((req) => reorderSteps(ctx, rule(req), req.body)),
  );
  r.put(
    "/rules/:id/steps/positions",
    route((req) => setPositions(ctx, rule(req), req.body)),
  );
  r.put(
    "/rules/:id/steps/:step_id",
    route((req) => updateStep(ctx, rule(req), step(req), req.body)),
  );
  r.delete(
    "/rules/:id/steps/:step_id",
    route(async (req) => void (await deleteStep(ctx, rule(req), step(req)))),
  );

  r.get(
    "/rules/:id/edges",
    route((req) => listEdges(ctx, rule(req))),
  );
  r.put(
    "/rules/:id/edges",
    route((req) => replaceEdges(ctx, rule(req), req.body)),
  );

  r.post(
    "/rules/:id/validate",
    route((req) => validateRule(ctx, rule(req), req.body)),
  );

  r.get(
    "/rules/:id/contexts",
    route((req) => listContexts(ctx, rule(req))),
  );
  r.post(
    "/rules/:id/contexts",
    route(async (req) => reply(201, await addContext(ctx, rule(req), req.body))),
  );
  r.delete(
    "/rules/:id/contexts/:ctx_id",
    route(async (req) => void (await deleteContext(ctx, rule(req), intParam(req, "ctx_id", "Context")))),
  );

  r.get(
    "/rules/:id/dependencies",
    route((req) => listRuleDependencies(ctx, rule(req))),
  );
  r.post(
    "/rules/:id/dependencies",
    route(async (req) => reply(201, await addDependency(ctx, rule(req), req.body))),
  );
  r.delete(
    "/rules/:id/dependencies/:dep_id",
    route(async (req) => void (await deleteDependency(ctx, rule(req), intParam(req, "dep_id", "Dependency")))),
  );
  return r;
}
