/** The knowledge authoring routers of cards, quizzes, layouts and voice defaults (one entry in V1_ROUTERS). */
import type { Router } from "express";
import type { CareContext } from "../../core/context";
import { cardsRouter } from "./cards/cards.router";
import { quizzesRouter } from "./quizzes/quizzes.router";
import { suggestRouter } from "./suggest/suggest.router";
import { layoutsRouter } from "./layouts/layouts.router";
import { voiceDefaultsRouter } from "./voice/voice-defaults.router";

export const knowledgeAuthoringRouters: ReadonlyArray<(ctx: CareContext) => Router> = [
  layoutsRouter,
  voiceDefaultsRouter,
  suggestRouter,
  cardsRouter,
  quizzesRouter,
];
