/** Starts the knowledge embedder of the app; each document fully embedded remembers the model. */
import type { CareContext } from "../../context";
import { startEmbedder } from "../retrieval";
import { markEmbedded } from "./documents.service";

export const startKnowledgeIndexing = (ctx: CareContext): (() => Promise<void>) => startEmbedder(ctx, (id, model) => markEmbedded(ctx, id, model));
