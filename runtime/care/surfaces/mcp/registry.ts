/**
 * The tool registry: every tool careflow has, the registered set (`mcp.tools`, all when
 * null) and the voice subset (`mcp.voice_tools`), the JSON Schemas clients see (generated
 * once, when first listed, from the tools' zod schemas, as the node specs' are), and the one place a tool call is
 * executed, for `/mcp` and the REST mirror alike: registered? arguments valid? the caller
 * allowed the tool's REST twin? then the service, and the call recorded.
 */
import { z } from "zod";
import type { Settings } from "../../../../settings";
import { CareflowError } from "../../../platform/core/errors";
import { isAllowed } from "../../../platform/auth/key-store";
import type { Principal } from "../../../platform/auth/principal";
import type { Logger } from "../../../platform/core/logger";
import { performance } from "node:perf_hooks";
import type { CallLog } from "./call-log";
import { ToolError, type ToolContext, type ToolDef } from "./tool";
import { HOUSEHOLD_TOOLS } from "./tools/household.tools";
import { PERSONS_TOOLS } from "./tools/persons.tools";
import { CARE_TOOLS } from "./tools/care.tools";
import { PENDING_REPORT_TOOLS, REPORT_TOOLS } from "./tools/report.tools";
import { KNOWLEDGE_TOOLS } from "./tools/knowledge.tools";
import { QUIZ_TOOLS } from "./tools/quiz.tools";

/** Every tool careflow serves. */
export const ALL_TOOLS: readonly ToolDef[] = [...HOUSEHOLD_TOOLS, ...PERSONS_TOOLS, ...CARE_TOOLS, ...REPORT_TOOLS, ...KNOWLEDGE_TOOLS, ...QUIZ_TOOLS];

/** Names the settings may list that have no tool yet. */
export const PENDING_TOOLS: readonly string[] = PENDING_REPORT_TOOLS;

export type ToolSet = "all" | "voice";

/** A tool as `tools/list` shows it. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; [k: string]: unknown };
  outputSchema: { type: "object"; [k: string]: unknown };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
}

/** What a call came to: the tool's value, or an error said in words (with the HTTP status the REST mirror answers). */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; status: number; message: string };

export interface CallMeta {
  transport: "mcp" | "rest" | "voice";
  session_id: string | null;
}

export class UnknownToolError extends Error {
  constructor(readonly tool: string) {
    super(`Unknown tool: ${tool}`);
  }
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): { type: "object"; [k: string]: unknown } {
  const s = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as { type: "object"; [k: string]: unknown };
  delete s.$schema;
  return s;
}

/** A list result travels as `{items: [...]}` in structuredContent: MCP wants an object there. */
export const isListTool = (def: ToolDef): boolean => def.output instanceof z.ZodArray;
const outputObject = (def: ToolDef): z.ZodType => (isListTool(def) ? z.object({ items: def.output }) : def.output);

function listed(def: ToolDef): ListedTool {
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: jsonSchema(def.input, "input"),
    outputSchema: jsonSchema(outputObject(def), "output"),
    annotations: { title: def.title, readOnlyHint: !def.destructive, destructiveHint: def.destructive === true, openWorldHint: false },
  };
}

/** Checks `mcp.tools` and `mcp.voice_tools` against the tools there are: an unknown name stops the start. */
export function checkToolSettings(mcp: Settings["mcp"], log?: Logger): void {
  const known = new Set([...ALL_TOOLS.map((t) => t.name), ...PENDING_TOOLS]);
  for (const [key, names] of [
    ["mcp.tools", mcp.tools ?? []],
    ["mcp.voice_tools", mcp.voice_tools],
  ] as const) {
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length) throw new Error(`Invalid settings: ${key}: unknown tool ${unknown.map((n) => `'${n}'`).join(", ")} (tools: ${[...known].join(", ")})`);
    const pending = names.filter((n) => PENDING_TOOLS.includes(n));
    if (pending.length) log?.warn({ key, tools: pending }, "these MCP tools are not available yet and are left out");
  }
}

export class ToolRegistry {
  private readonly registered = new Map<string, ToolDef>();
  private readonly voice = new Set<string>();
  private readonly listings = new Map<ToolSet, ListedTool[]>();

  constructor(
    settings: Settings["mcp"],
    private readonly log: Logger,
    private readonly calls: CallLog,
    tools: readonly ToolDef[] = ALL_TOOLS,
  ) {
    checkToolSettings(settings, log);
    const wanted = settings.tools === null ? null : new Set(settings.tools);
    for (const t of tools) if (!wanted || wanted.has(t.name)) this.registered.set(t.name, t);
    // The voice subset is within the registered set; destructive tools only when listed (they are not by default).
    for (const name of settings.voice_tools) if (this.registered.has(name)) this.voice.add(name);
  }

  /**
   * The tools a client of this set sees, built at the first ask: generating the JSON Schemas
   * is ~15 ms that the service's start need not wait for.
   */
  list(set: ToolSet): readonly ListedTool[] {
    let tools = this.listings.get(set);
    if (!tools) {
      const all = this.listings.get("all") ?? [...this.registered.values()].map(listed);
      this.listings.set("all", all);
      tools = set === "all" ? all : all.filter((t) => this.voice.has(t.name));
      this.listings.set(set, tools);
    }
    return tools;
  }

  names(set: ToolSet): string[] {
    return this.list(set).map((t) => t.name);
  }

  /** The tool if it exists for this set; a tool not registered does not exist for clients. */
  find(name: string, set: ToolSet): ToolDef | undefined {
    const def = this.registered.get(name);
    return def && (set === "all" || this.voice.has(name)) ? def : undefined;
  }

  /**
   * Runs a tool for a caller. An unknown tool throws `UnknownToolError` (a protocol error on
   * /mcp, 404 on REST); anything else, including bad arguments and a missing capability,
   * comes back as an outcome the caller reads. Every call is recorded.
   */
  async call(t: Omit<ToolContext, "principal">, principal: Principal, name: string, rawArgs: unknown, set: ToolSet, meta: CallMeta): Promise<CallOutcome> {
    const started = performance.now();
    const def = this.find(name, set);
    const outcome: CallOutcome = def ? await this.execute(def, { ...t, principal }, rawArgs) : { ok: false, status: 404, message: `Unknown tool: ${name}` };
    this.calls.record({
      caller: principal.name,
      transport: meta.transport,
      session_id: meta.session_id,
      tool: name.slice(0, 100),
      arguments: rawArgs ?? {},
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      outcome: outcome.ok ? "ok" : def && outcome.status !== 403 ? "error" : "refused",
      error: outcome.ok ? null : outcome.message,
    });
    if (!def) throw new UnknownToolError(name);
    return outcome;
  }

  private async execute(def: ToolDef, t: ToolContext, rawArgs: unknown): Promise<CallOutcome> {
    const parsed = def.input.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "arguments"}: ${i.message}`).join("; ");
      return { ok: false, status: 422, message: `Invalid arguments for ${def.name}: ${why}` };
    }
    const [method, ...rest] = def.twin(parsed.data).split(" ");
    const path = rest.join(" ");
    if (!isAllowed(t.principal, method, path)) {
      return { ok: false, status: 403, message: `Permission denied: '${t.principal.name}' may not use ${def.name} here (it needs ${method} ${path})` };
    }
    try {
      return { ok: true, value: await def.run(t, parsed.data) };
    } catch (err) {
      if (err instanceof ToolError) return { ok: false, status: err.status, message: err.message };
      if (err instanceof CareflowError) return { ok: false, status: err.status, message: err.message };
      this.log.error({ err, tool: def.name }, "an MCP tool failed");
      return { ok: false, status: 500, message: `${def.name} failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}
