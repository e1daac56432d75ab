/**
 * `/api/v1/chat/*` (issue 43 §1, the Household page's Family chat): whether the bot works, the
 * family's chats and who gets which level, one-time codes a relative sends to the bot, and a
 * test message. Reads are every reader's (caregivers too: GET); the writes are the admin's
 * (no other role is granted them; the role matrix checks it).
 */
import { Router, type Request } from "express";
import type { CareContext } from "../../core/context";
import { intParam } from "../../../platform/http/params";
import { reply, route } from "../../../platform/http/route";
import { botStatus } from "./bot-status";
import type { ChatLink } from "./chat.service";
import { cancelLinkCode, changeRelative, makeLinkCode, pendingCodes, relativeByChatId, relatives, removeRelative } from "./relatives.service";
import { chatWords, testText } from "./relative-words";

export function chatRelativesRouter(ctx: CareContext, chat: ChatLink): Router {
  const r = Router();
  const chatIdOf = (req: Request) => String(req.params.chat_id ?? "");
  r.get(
    "/chat/bot",
    route(() => botStatus(ctx, chat)),
  );
  r.get(
    "/chat/relatives",
    route(() => relatives(ctx)),
  );
  r.patch(
    "/chat/relatives/:chat_id",
    route((req) => changeRelative(ctx, req.principal!, chatIdOf(req), req.body)),
  );
  r.delete(
    "/chat/relatives/:chat_id",
    route(async (req) => void (await removeRelative(ctx, req.principal!, chatIdOf(req)))),
  );
  r.post(
    "/chat/relatives/:chat_id/test",
    route(async (req) => {
      const relative = await relativeByChatId(ctx, chatIdOf(req));
      const sent = await chat.sendText(relative.chat_id, testText(chatWords(ctx, relative.language), relative));
      return sent.ok ? { delivered: true, detail: `message ${sent.value}` } : { delivered: false, detail: sent.reason };
    }),
  );
  r.get(
    "/chat/link-codes",
    route(() => pendingCodes(ctx)),
  );
  r.post(
    "/chat/link-codes",
    route(async (req) => {
      // The bot's username makes the link that opens its chat with the code in it; without it, the message alone.
      const bot = await botStatus(ctx, chat);
      return reply(201, await makeLinkCode(ctx, req.principal!, req.body, bot));
    }),
  );
  r.delete(
    "/chat/link-codes/:id",
    route(async (req) => void (await cancelLinkCode(ctx, intParam(req, "id", "Code")))),
  );
  return r;
}
