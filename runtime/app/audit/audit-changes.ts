/**
 * Records the audited REST writes (`audited-routes.ts`) in the audit log, with the caller's key
 * name: once the write succeeded (a 2xx answer), before that answer is sent, so a client that
 * has the answer finds the entry. A new thing's id and name are read from the answer. A failed
 * log write is logged and does not hold the answer: the change itself is already made.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { PlatformContext } from "../../platform/context";
import { recordAudit } from "../../platform/audit/audit.store";
import { isoNow } from "../../platform/core/clock";
import { auditedWrite } from "./audited-routes";

/** An answer bigger than this is not read for a name (a rule bundle's, say). */
const MAX_ANSWER_READ = 256 * 1024;

type Fields = Record<string, unknown>;

function answerFields(chunk: unknown, res: Response): Fields | null {
  if (!String(res.getHeader("content-type") ?? "").includes("json")) return null;
  const text = Buffer.isBuffer(chunk) ? (chunk.length <= MAX_ANSWER_READ ? chunk.toString("utf8") : null) : typeof chunk === "string" ? chunk : null;
  if (!text || text.length > MAX_ANSWER_READ) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Fields) : null;
  } catch {
    return null;
  }
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);

/** A thing's name as its answer or the request's body gives it. */
const nameIn = (f: Fields | null): string | null => (f ? (text(f.name) ?? text(f.display_name) ?? text(f.title) ?? null) : null);

export function auditChanges(ctx: PlatformContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const write = req.principal ? auditedWrite(req.method, req.path) : null;
    if (!write) return next();
    const actor = req.principal!.name;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (res.statusCode < 200 || res.statusCode >= 300) return end(...args);
      const answer = answerFields(args[0], res);
      const body = req.body && typeof req.body === "object" && !Array.isArray(req.body) ? (req.body as Fields) : null;
      const entry = {
        at: isoNow(ctx.clock),
        actor,
        action: write.action,
        target_type: write.target_type,
        target_id: write.target_id ?? (write.id_field && answer ? text(answer[write.id_field]) : null),
        target_name: write.many ?? (write.nested ? null : (nameIn(answer) ?? nameIn(body))),
      };
      recordAudit(ctx.db, entry)
        .catch((err: unknown) => ctx.log.warn({ err: (err as Error).message, entry }, "audit: could not record a change"))
        .finally(() => end(...args));
      return res;
    }) as Response["end"];
    next();
  };
}
