/** `/info-cards`: the cards, their lifecycle and their picture slots (HTTP only; logic in the services). */
import { Router, type Request } from "express";
import { z } from "zod";
import type { CareContext } from "../../../core/context";
import { registerMediaKeeper } from "../../../../household/media/media.service";
import { NotFoundError } from "../../../../platform/core/errors";
import { intParam } from "../../../../platform/http/params";
import { pagingQuery, queryParser } from "../../../../platform/http/query";
import { reply, route } from "../../../../platform/http/route";
import { readPicture } from "../images/upload-form";
import { actorOf, STATUSES } from "../shared/fields";
import { cardMediaKeeper } from "./card-media-keeper";
import { clearSlot, patchSlot, setSlot } from "./card-slots.service";
import { cardLifecycle, createCard, deleteCard, getCard, listCards, patchCard, rerenderCard } from "./cards.service";
import { storeIdQuery } from "../../../../../nodes/_kit/store-id";

const cardsQuery = queryParser({
  status: z.enum(STATUSES).optional(),
  tag: z.string().min(1).max(60).optional(),
  document_id: storeIdQuery().optional(),
  ...pagingQuery(50, 200),
});

/** A slot index: 0 or more (a malformed one names no slot, so 404 like an unknown one). */
export function slotParam(req: Request): number {
  const raw = req.params.i ?? "";
  if (!/^\d{1,3}$/.test(raw)) throw new NotFoundError(`Slot ${raw.slice(0, 20)} not found`);
  return Number(raw);
}

export function cardsRouter(ctx: CareContext): Router {
  registerMediaKeeper(cardMediaKeeper);
  const r = Router();
  const id = (req: Request) => intParam(req, "id", "Info card");
  r.get(
    "/info-cards",
    route((req) => listCards(ctx, cardsQuery(req))),
  );
  r.post(
    "/info-cards",
    route(async (req) => reply(201, await createCard(ctx, actorOf(req), req.body))),
  );
  r.get(
    "/info-cards/:id",
    route((req) => getCard(ctx, id(req))),
  );
  r.patch(
    "/info-cards/:id",
    route((req) => patchCard(ctx, id(req), req.body)),
  );
  r.delete(
    "/info-cards/:id",
    route(async (req) => void (await deleteCard(ctx, id(req)))),
  );
  for (const action of ["approve", "archive", "restore"] as const) {
    r.post(
      `/info-cards/:id/${action}`,
      route((req) => cardLifecycle(ctx, id(req), action, actorOf(req))),
    );
  }
  r.post(
    "/info-cards/:id/rerender",
    route((req) => rerenderCard(ctx, id(req))),
  );
  r.put(
    "/info-cards/:id/slots/:i",
    route(async (req, res) => {
      const cardId = id(req);
      const index = slotParam(req);
      await getCard(ctx, cardId); // 404 before reading an upload for nothing
      return setSlot(ctx, cardId, index, await readPicture(req, res, ctx.settings));
    }),
  );
  r.patch(
    "/info-cards/:id/slots/:i",
    route((req) => patchSlot(ctx, id(req), slotParam(req), req.body)),
  );
  r.delete(
    "/info-cards/:id/slots/:i",
    route((req) => clearSlot(ctx, id(req), slotParam(req))),
  );
  return r;
}
