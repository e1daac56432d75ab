import { Router } from "express";
import type { EngineRegistry } from "../engines/registry";

/** `GET /v1/models`: the engines this process can use, in the OpenAI list shape. */
export function modelsRoutes(engines: EngineRegistry): Router {
  const router = Router();
  router.get("/v1/models", (_req, res) => {
    res.json({
      object: "list",
      data: engines.list().map((engine) => ({ id: engine.id, object: "model", owned_by: engine.ownedBy })),
    });
  });
  return router;
}
