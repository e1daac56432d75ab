/** Runs: `/workflows`, `/pipeline/runs`, the ingest activity and the manual trigger `POST /rules/{id}/execute`. */
import { Router } from "express";
import { z } from "zod";
import type { CareContext } from "../../context";
import { intParam } from "../../../../platform/http/params";
import { queryParser } from "../../../../platform/http/query";
import { reply, route } from "../../../../platform/http/route";
import { detailView } from "./run-detail";
import { ingestActivity } from "./ingest-activity";
import { framedEnvelope, runFrames } from "./run-frames";
import { runWords } from "./run-words";
import { cancelRun, envelope, executeRule, getRun, queryRuns, rerunRun, workflowView } from "./runs.service";
import { storeIdQuery } from "../../../../../nodes/_kit/store-id";

const STATUSES = ["running", "waiting", "completed", "failed", "cancelled"] as const;

const workflowsQuery = queryParser({
  rule_id: storeIdQuery().optional(),
  status: z.enum(STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const pipelineRunsQuery = queryParser({ status: z.enum([...STATUSES, "active"]).optional(), limit: z.coerce.number().int().min(1).max(100).default(20) });

const ingestQuery = queryParser({ limit: z.coerce.number().int().min(1).max(200).default(50) });

export function runsRouter(ctx: CareContext): Router {
  const r = Router();
  const id = (req: Parameters<typeof intParam>[0]) => intParam(req, "id", "Execution");
  r.get(
    "/workflows",
    route(async (req) => {
      const q = workflowsQuery(req);
      return (await queryRuns(ctx, q)).map(workflowView);
    }),
  );
  r.get(
    "/workflows/:id",
    route(async (req) => workflowView(await getRun(ctx, id(req)))),
  );
  r.get(
    "/workflows/:id/detail",
    route(async (req) => {
      const run = await getRun(ctx, id(req));
      return detailView(run, await runFrames(ctx, run), await runWords(ctx));
    }),
  );
  r.post(
    "/workflows/:id/cancel",
    route((req) => cancelRun(ctx, id(req))),
  );
  r.post(
    "/workflows/:id/rerun",
    route(async (req) => reply(201, await rerunRun(ctx, id(req)))),
  );
  r.get(
    "/pipeline/runs",
    route(async (req) => {
      const q = pipelineRunsQuery(req);
      const rows = await queryRuns(ctx, { limit: q.limit, ...(q.status === "active" ? { active: true } : q.status ? { status: q.status } : {}) });
      return rows.map(envelope);
    }),
  );
  r.get(
    "/pipeline/runs/:id",
    route(async (req) => {
      const run = await getRun(ctx, id(req));
      return framedEnvelope(run, await runFrames(ctx, run));
    }),
  );
  r.get(
    "/pipeline/ingest/activity",
    route(async (req) => {
      const q = ingestQuery(req);
      return ingestActivity(ctx, q.limit);
    }),
  );
  r.post(
    "/rules/:id/execute",
    route(async (req) => reply(201, await executeRule(ctx, intParam(req, "id", "Rule"), req.principal?.name))),
  );
  return r;
}
