/**
 * One MCP tool: its name, description, input and output schemas (zod; the JSON Schemas that
 * `tools/list` and `GET /api/v1/mcp/tools` show are generated from them, as the node specs'
 * are), the REST route it stands for (whose permission the caller must hold), and its run,
 * which calls the existing service that owns the data, never a second query.
 */
import type { z } from "zod";
import type { CareContext } from "../../core/context";
import type { OccupancyBoard } from "../../../household/occupancy/occupancy.board";
import type { Principal } from "../../../platform/auth/principal";

/** What a tool's run receives. */
export interface ToolContext {
  ctx: CareContext;
  occupancy: OccupancyBoard;
  principal: Principal;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  /** The shape of the result: an object, or an array (carried as `{items}` in structuredContent). */
  output: O;
  /** The REST route this tool stands for, `METHOD /api/v1/...`: the caller needs its permission. */
  twin: (args: z.output<I>) => string;
  /** Changes something (a run, a rule, an answer): never in the voice subset by default. */
  destructive?: boolean;
  run(t: ToolContext, args: z.output<I>): Promise<z.input<O>> | z.input<O>;
}

/** Keeps each tool's input and output types checked against its run. */
export const defineTool = <I extends z.ZodObject, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef => def as unknown as ToolDef;

/** A tool that cannot answer (capability not configured, nothing found): an MCP tool error, a 4xx/503 on REST. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly status = 422,
  ) {
    super(message);
  }
}

/** The capability a tool needs is not configured here (no hub, no conversation store). */
export const notConfigured = (message: string): ToolError => new ToolError(message, 503);
