/**
 * `/mcp`: MCP over streamable HTTP with the official SDK (`@modelcontextprotocol/sdk`), in
 * stateful sessions: `initialize` (POST without a session id) opens one and answers its id in
 * `Mcp-Session-Id`; later POSTs carry it, GET opens the session's SSE stream, DELETE ends it.
 * A session belongs to the key that opened it (another key's request with its id is answered
 * 404, as an unknown one), and to the tool set asked for at `initialize` (`?tools=voice`: the
 * voice subset). Idle sessions end after `SESSION_IDLE_MS`; at most `MAX_SESSIONS` live at
 * once and `MAX_SESSIONS_PER_KEY` per key: an `initialize` over a limit is refused (429 over
 * the key's own share, 503 when all are taken) and no session is ever ended to make room, so
 * one key opening sessions in a loop cannot end another's (as `/ws` refuses newcomers).
 *
 * The transport's own HTTP errors are JSON-RPC bodies; careflow's errors are `{"detail"}`:
 * the common failures are answered here first (both shapes in one body), and whatever the
 * transport still refuses gets a `detail` beside its JSON-RPC error.
 */
import { randomUUID } from "node:crypto";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Principal } from "../../../platform/auth/principal";
import type { KeyStore } from "../../../platform/auth/key-store";
import type { FailureThrottle } from "../../../platform/auth/failure-throttle";
import type { CareContext } from "../../core/context";
import type { OccupancyBoard } from "../../../household/occupancy/occupancy.board";
import { isListTool, UnknownToolError, type CallOutcome, type ToolRegistry, type ToolSet } from "./registry";
import { mcpAuth, originGuard, originPolicy } from "./guard";
import { lazyModule } from "../../../platform/core/lazy-module";
import { CareflowError, TooManyRequestsError } from "../../../platform/core/errors";
import { inputProblem } from "../../../platform/http/json-body";
import { ShareLimits } from "../../../platform/ws/connection-limits";

// The MCP SDK (and the zod schemas it builds) is loaded by the first MCP request, not at
// start: about a tenth of start-up's module loading (issue 29).
const sdkServer = lazyModule(() => require("@modelcontextprotocol/sdk/server/index.js") as typeof import("@modelcontextprotocol/sdk/server/index.js"));
const sdkHttp = lazyModule(
  () => require("@modelcontextprotocol/sdk/server/streamableHttp.js") as typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
);
const sdkTypes = lazyModule(() => require("@modelcontextprotocol/sdk/types.js") as typeof import("@modelcontextprotocol/sdk/types.js"));

export const SESSION_IDLE_MS = 30 * 60_000;
export const MAX_SESSIONS = 200;
export const MAX_SESSIONS_PER_KEY = 20;
const SERVER_INFO = { name: "careflow", version: "0.1.0" };

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  owner: string;
  set: ToolSet;
  lastSeen: number;
  /** Counts the session out of its key's share (once). */
  release: () => void;
}

/** A tool outcome as an MCP `tools/call` result: JSON text, and the value in structuredContent. */
export function callResult(outcome: CallOutcome, listTool: boolean) {
  if (!outcome.ok) return { content: [{ type: "text" as const, text: JSON.stringify({ error: outcome.message }) }], isError: true };
  const value = outcome.value;
  return {
    content: [{ type: "text" as const, text: JSON.stringify(value) }],
    structuredContent: (listTool ? { items: value } : value) as Record<string, unknown>,
  };
}

const ownerOf = (p: Principal) => `${p.kind}:${p.name}`;

function jsonRpcError(res: Response, status: number, message: string, code = -32000): void {
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null, detail: message });
}

/** Adds `detail` to an error body the transport writes (status >= 400), keeping its JSON-RPC fields. */
function detailOnErrors(res: Response): void {
  const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => Response;
  let failing = false;
  const chunks: Buffer[] = [];
  (res as unknown as { writeHead: (...a: unknown[]) => Response }).writeHead = (status: unknown, ...rest: unknown[]) => {
    if (typeof status === "number" && status >= 400) failing = true;
    if (!failing) return writeHead(status, ...rest);
    // The body is rewritten below: its length is not the transport's.
    res.statusCode = status as number;
    for (const h of rest)
      if (h && typeof h === "object" && !Array.isArray(h))
        for (const [k, v] of Object.entries(h)) if (lower(k) !== "content-length") res.setHeader(k, v as string);
    return res;
  };
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!failing) return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    if (chunk) chunks.push(Buffer.from(chunk as string));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (!failing) return (end as (...a: unknown[]) => Response)(chunk, ...rest);
    if (chunk && typeof chunk !== "function") chunks.push(Buffer.from(chunk as string));
    const text = Buffer.concat(chunks).toString("utf8");
    let body: Record<string, unknown>;
    try {
      const parsed = JSON.parse(text) as unknown;
      body = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
    } catch {
      body = {};
    }
    const message = (body.error as { message?: string } | undefined)?.message ?? (text.trim() || `HTTP ${res.statusCode}`);
    const out = JSON.stringify({ ...body, detail: typeof body.detail === "string" ? body.detail : message });
    res.setHeader("content-type", "application/json");
    res.setHeader("content-length", Buffer.byteLength(out));
    // The real writeHead, now: `end` would otherwise call the swallowing one above, and the
    // body would go out with no status line (issue 51 item 8).
    writeHead(res.statusCode);
    return (end as (...a: unknown[]) => Response)(out);
  }) as typeof res.end;
}
const lower = (s: string) => s.toLowerCase();

const MCP_BODY_LIMIT = "6mb";

/** The nesting and NUL limits of `/api/v1` bodies (json-body.ts), answered as a JSON-RPC error. */
function nestingGuard(req: Request, res: Response, next: NextFunction): void {
  const problem = inputProblem(req.body, "body");
  if (problem) return jsonRpcError(res, 422, problem, -32600);
  next();
}

/**
 * Failures before the transport (key, Host, body) as JSON-RPC errors with `detail`, so an MCP
 * client reads every refusal the same way; anything else goes on to the app's error handler.
 */
function mcpErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  if (err instanceof CareflowError) {
    if (err.status >= 500) return next(err);
    if (err instanceof TooManyRequestsError) res.set("Retry-After", String(err.retryAfterSeconds));
    return jsonRpcError(res, err.status, err.message);
  }
  const parser = err as { type?: string; message?: string };
  if (parser?.type === "entity.parse.failed") return jsonRpcError(res, 400, `Parse error: body is not valid JSON (${parser.message ?? "parse error"})`, -32700);
  if (parser?.type === "entity.too.large") return jsonRpcError(res, 413, `body: larger than ${MCP_BODY_LIMIT}`, -32600);
  const status = (err as { status?: unknown })?.status;
  if (typeof status === "number" && status >= 400 && status < 500) return jsonRpcError(res, status, `body: ${parser.message ?? "bad request"}`, -32600);
  next(err);
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  /** Sessions per owner, those being initialized included (a burst must not pass the check together). */
  private readonly shares = new ShareLimits(() => ({ total: MAX_SESSIONS, per_owner: MAX_SESSIONS_PER_KEY }));
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly ctx: CareContext,
    private readonly occupancy: OccupancyBoard,
    private readonly registry: ToolRegistry,
  ) {
    // Sessions live in this instance's memory (a client keeps to the instance that opened its
    // session), so each instance sweeps its own: no lease, nothing shared to do twice.
    this.sweep = setInterval(() => void this.endIdle(), 60_000);
    this.sweep.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  private newServer(set: ToolSet, sessionId: () => string | undefined): Server {
    const server = new (sdkServer().Server)(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "careflow watches over a senior living at home. Tools read the household (rooms, sensors, where members are, alerts, care rules and their runs) and a few act (run a rule, answer a prompt, import a rule) when the key allows it.",
    });
    server.setRequestHandler(sdkTypes().ListToolsRequestSchema, () => ({ tools: [...this.registry.list(set)] }));
    server.setRequestHandler(sdkTypes().CallToolRequestSchema, async (req, extra) => {
      const principal = (extra.authInfo?.extra as { principal?: Principal } | undefined)?.principal;
      if (!principal) throw new (sdkTypes().McpError)(sdkTypes().ErrorCode.InternalError, "no caller");
      const name = req.params.name;
      try {
        const outcome = await this.registry.call({ ctx: this.ctx, occupancy: this.occupancy }, principal, name, req.params.arguments ?? {}, set, {
          transport: "mcp",
          session_id: sessionId() ?? null,
        });
        return callResult(outcome, isListTool(this.registry.find(name, set)!));
      } catch (err) {
        if (err instanceof UnknownToolError) throw new (sdkTypes().McpError)(sdkTypes().ErrorCode.InvalidParams, `Unknown tool: ${name}`);
        throw err;
      }
    });
    return server;
  }

  /** The `/mcp` router: origin guard, key, then the session's transport. */
  router(keys: KeyStore, throttle: FailureThrottle): Router {
    const r = Router();
    const guard = originGuard(originPolicy(this.ctx.settings));
    const auth = mcpAuth(keys, throttle);
    const body = express.json({ limit: MCP_BODY_LIMIT });
    r.post("/mcp", guard, auth, body, nestingGuard, (req, res, next) => void this.post(req, res).catch(next));
    r.get("/mcp", guard, auth, (req, res, next) => void this.stream(req, res).catch(next));
    r.delete("/mcp", guard, auth, (req, res, next) => void this.stream(req, res).catch(next));
    r.all("/mcp", guard, auth, (_req: Request, res: Response) => {
      res.set("Allow", "GET, POST, DELETE");
      jsonRpcError(res, 405, "Method not allowed: use POST, GET or DELETE");
    });
    r.use("/mcp", mcpErrors);
    return r;
  }

  private authInfo(req: Request) {
    const principal = req.principal!;
    return { token: "", clientId: principal.name, scopes: [], extra: { principal } };
  }

  /** The caller's session, or an answer saying why there is none. */
  private sessionOf(req: Request, res: Response): Session | null {
    const id = req.get("mcp-session-id");
    if (!id) {
      jsonRpcError(res, 400, "Bad Request: no Mcp-Session-Id header (initialize first)");
      return null;
    }
    const s = this.sessions.get(id);
    if (!s || s.owner !== ownerOf(req.principal!)) {
      jsonRpcError(res, 404, "Session not found (it ended or expired): initialize again", -32001);
      return null;
    }
    s.lastSeen = Date.now();
    return s;
  }

  private async post(req: Request, res: Response): Promise<void> {
    if (!acceptsBoth(req.get("accept"))) {
      return jsonRpcError(res, 406, "Not Acceptable: the client must accept both application/json and text/event-stream");
    }
    if (!req.is("application/json")) return jsonRpcError(res, 415, "Unsupported Media Type: send application/json");
    const message: unknown = req.body;
    if (!isJsonRpc(message)) return jsonRpcError(res, 400, "Bad Request: not a JSON-RPC 2.0 message", -32600);
    (req as Request & { auth?: unknown }).auth = this.authInfo(req);
    const initializing = Array.isArray(message) ? message.some(sdkTypes().isInitializeRequest) : sdkTypes().isInitializeRequest(message);
    if (initializing) {
      if (req.get("mcp-session-id")) return jsonRpcError(res, 400, "Bad Request: initialize opens a new session; send it without Mcp-Session-Id");
      const refused = this.refusal(ownerOf(req.principal!));
      if (refused) {
        res.set("Retry-After", "60");
        return jsonRpcError(res, refused.status, refused.message);
      }
      const opening = this.open(req);
      detailOnErrors(res);
      try {
        await opening.transport.handleRequest(req, res, message);
      } finally {
        // An initialize the transport refused opened nothing: its place in the share is free again.
        if (!opening.initialized()) opening.release();
      }
      return;
    }
    const s = this.sessionOf(req, res);
    if (!s) return;
    detailOnErrors(res);
    await s.transport.handleRequest(req, res, message);
  }

  private async stream(req: Request, res: Response): Promise<void> {
    if (req.method === "GET" && !(req.get("accept") ?? "").includes("text/event-stream")) {
      return jsonRpcError(res, 406, "Not Acceptable: the client must accept text/event-stream");
    }
    const s = this.sessionOf(req, res);
    if (!s) return;
    (req as Request & { auth?: unknown }).auth = this.authInfo(req);
    detailOnErrors(res);
    await s.transport.handleRequest(req, res);
  }

  /** Why this owner may not open a session now, or null. */
  private refusal(owner: string): { status: number; message: string } | null {
    const over = this.shares.overflow(owner);
    if (over === "per_owner") {
      return {
        status: 429,
        message: `Too many MCP sessions with this key (${MAX_SESSIONS_PER_KEY}): end one (DELETE /mcp) or let an idle one expire`,
      };
    }
    if (over === "total") return { status: 503, message: `Too many MCP sessions (${MAX_SESSIONS}): try again later` };
    return null;
  }

  private open(req: Request): { transport: StreamableHTTPServerTransport; initialized: () => boolean; release: () => void } {
    const set: ToolSet = req.query.tools === "voice" ? "voice" : "all";
    const owner = ownerOf(req.principal!);
    const release = this.shares.admit(owner);
    let id: string | undefined;
    const transport: StreamableHTTPServerTransport = new (sdkHttp().StreamableHTTPServerTransport)({
      sessionIdGenerator: () => randomUUID(),
      // A request's answer as one JSON body, not an SSE stream: no tool streams progress, and
      // a stream per call cost 4x the time (bench/mcp.bench.ts). GET still opens the session's stream.
      enableJsonResponse: true,
      onsessioninitialized: (sid) => {
        id = sid;
        this.sessions.set(sid, { id: sid, transport, server, owner, set, lastSeen: Date.now(), release });
      },
      onsessionclosed: (sid) => {
        this.sessions.delete(sid);
        release();
      },
    });
    const server = this.newServer(set, () => id);
    transport.onclose = () => {
      if (id) this.sessions.delete(id);
      release();
    };
    void server.connect(transport);
    return { transport, initialized: () => id !== undefined, release };
  }

  private async end(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    s.release();
    await s.server.close().catch(() => undefined);
  }

  private async endIdle(): Promise<void> {
    const before = Date.now() - SESSION_IDLE_MS;
    for (const s of [...this.sessions.values()]) if (s.lastSeen < before) await this.end(s.id);
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id)));
  }
}

function acceptsBoth(accept: string | undefined): boolean {
  const a = accept ?? "";
  return a.includes("application/json") && a.includes("text/event-stream");
}

function isJsonRpc(m: unknown): boolean {
  const one = (x: unknown) => !!x && typeof x === "object" && !Array.isArray(x) && (x as { jsonrpc?: unknown }).jsonrpc === "2.0";
  return Array.isArray(m) ? m.length > 0 && m.every(one) : one(m);
}
