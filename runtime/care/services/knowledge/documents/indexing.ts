/**
 * Starts the knowledge embedder of the app; each document fully embedded remembers the model.
 * Several instances: it runs on the `knowledge-embedder` lease holder only (one set of calls to
 * the embedding model, one retry schedule), which looks for new chunks every few seconds since
 * documents added through other instances cannot kick it.
 */
import type { CareContext } from "../../../core/context";
import { clustered } from "../../../../platform/cluster/adopt";
import { leasesOf } from "../../../../platform/cluster/cluster";
import { whileHolding } from "../../../../platform/cluster/leases";
import { startEmbedder } from "../retrieval";
import { markEmbedded } from "./documents.service";

/** Several instances: how long a document added elsewhere may wait for the holder to see it. */
export const CLUSTER_EMBED_POLL_MS = 5000;

export const startKnowledgeIndexing = (ctx: CareContext): (() => Promise<void>) =>
  whileHolding(leasesOf(ctx), "knowledge-embedder", () =>
    startEmbedder(ctx, (id, model) => markEmbedded(ctx, id, model), { pollMs: clustered(ctx) ? CLUSTER_EMBED_POLL_MS : undefined }),
  );
