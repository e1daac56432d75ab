/**
 * The REST mirror of the MCP tools, under `/api/v1`: `GET /mcp/tools` (the tools with their
 * schemas, as `tools/list`), `POST /mcp/tools/{name}` (the body is the arguments; the answer is
 * the tool's value, as the text of `tools/call`, or its error as `{"detail"}` with a status:
 * 404 unknown tool, 422 bad arguments, 403 not allowed, 503 not configured), and
 * `GET /mcp/calls` (the call log). `?set=voice` on the first two: the voice subset. The same
 * Host and Origin check as `/mcp` (`guard.ts`): the tools must not be driven from another
 * site's page through the household's browser (DNS rebinding) by this door either.
 */
import { Router, type Request } from "express";
import { z } from "zod";
import { CareflowError, NotFoundError } from "../../../platform/core/errors";
import { pagingQuery, queryParser } from "../../../platform/http/query";
import { reply, route } from "../../../platform/http/route";
import type { CareContext } from "../../core/context";
import type { OccupancyBoard } from "../../../household/occupancy/occupancy.board";
import type { CallLog } from "./call-log";
import { UnknownToolError, type ToolRegistry, type ToolSet } from "./registry";
import { originGuard, originPolicy } from "./guard";

const toolSetQuery = queryParser({ set: z.enum(["all", "voice"]).default("all") });

const setOf = (req: Request): ToolSet => toolSetQuery(req).set as ToolSet;

const callsQuery = queryParser({
  tool: z.string().min(1).max(100).optional(),
  caller: z.string().min(1).max(200).optional(),
  outcome: z.enum(["ok", "error", "refused"]).optional(),
  since: z.iso
    .datetime({ offset: true })
    .transform((s) => new Date(s).toISOString())
    .optional(),
  ...pagingQuery(50, 500),
});

export function mcpRestRouter(ctx: CareContext, occupancy: OccupancyBoard, registry: ToolRegistry, calls: CallLog): Router {
  const r = Router();
  r.use("/mcp", originGuard(originPolicy(ctx.settings)));
  r.get(
    "/mcp/tools",
    route((req) => ({ tools: registry.list(setOf(req)) })),
  );
  r.post(
    "/mcp/tools/:name",
    route(async (req) => {
      const set = setOf(req);
      try {
        const outcome = await registry.call({ ctx, occupancy }, req.principal!, req.params.name, req.body ?? {}, set, { transport: "rest", session_id: null });
        if (!outcome.ok) throw new CareflowError(outcome.status, outcome.message);
        return reply(200, outcome.value);
      } catch (err) {
        if (err instanceof UnknownToolError) throw new NotFoundError(`Unknown tool: ${err.tool}`);
        throw err;
      }
    }),
  );
  r.get(
    "/mcp/calls",
    route((req) => calls.list(callsQuery(req))),
  );
  return r;
}
