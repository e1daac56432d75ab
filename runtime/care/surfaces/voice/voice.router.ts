/**
 * The voice companion over REST, under `/api/v1`: `GET /voice/sessions` (the conversation
 * going on and the last ones), `POST /voice/sessions` (have the companion talk with the senior
 * now, optionally about something: 201, or 503 saying why it cannot), `DELETE
 * /voice/sessions/{id}` (end it), `GET /voice/turns` (what was said, as
 * `get_conversation_history` reads it).
 */
import { Router } from "express";
import { z } from "zod";
import { NotFoundError, ServiceUnavailableError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { queryParser } from "../../../platform/http/query";
import { reply, route } from "../../../platform/http/route";
import type { CareContext } from "../../core/context";
import type { VoiceCompanion } from "./voice-companion";
import { recentTurns } from "../../../household/voice-turns/voice-turns.store";

const startBody = z
  .object({
    text: z.string().trim().min(1).max(2000).nullable().default(null).describe("what the companion should tell the senior; none: it greets and listens"),
    instruction: z.string().trim().min(1).max(2000).nullable().default(null).describe("how to speak, added to the base instruction"),
  })
  .strict();

const voiceQuery = queryParser({ session_id: z.string().min(1).max(64).optional(), limit: z.coerce.number().int().min(1).max(500).default(50) });

export function voiceRouter(ctx: CareContext, voice: VoiceCompanion): Router {
  const r = Router();
  r.get(
    "/voice/sessions",
    route(() => voice.list()),
  );
  r.post(
    "/voice/sessions",
    route(async (req) => {
      const body = parseInput(startBody, req.body ?? {});
      const started = await voice.start({ reason: "api", text: body.text, instruction: body.instruction });
      if (!started.ok) throw new ServiceUnavailableError(`The voice companion cannot talk now: ${started.reason}`);
      return reply(201, started.value);
    }),
  );
  r.delete(
    "/voice/sessions/:id",
    route((req) => {
      if (!voice.stop(req.params.id, `ended by ${req.principal?.name ?? "the API"}`)) throw new NotFoundError(`No conversation '${req.params.id}' is going on`);
      return reply(204);
    }),
  );
  r.get(
    "/voice/turns",
    route(async (req) => {
      const q = voiceQuery(req);
      return { turns: await recentTurns(ctx.db, { ...(q.session_id ? { session_id: q.session_id } : {}), limit: q.limit }) };
    }),
  );
  return r;
}
