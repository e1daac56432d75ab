import { Router } from "express";
import { ENGINE_IDS } from "../engines/engine";
import type { EngineRegistry } from "../engines/registry";
import type { VoiceStore } from "../voices/voice-store";

/**
 * `GET /health`, without authentication. Every engine name is listed so an operator sees which
 * are not configured; `gpu_available` is false because nothing in this process uses a GPU (the
 * neural engines run on their own servers).
 */
export function healthRoutes(engines: EngineRegistry, voices: VoiceStore): Router {
  const router = Router();
  router.get("/health", (_req, res) => {
    const report = Object.fromEntries(
      ENGINE_IDS.map((id) => {
        const engine = engines.get(id);
        return [id, engine ? { configured: true, ...engine.health() } : { configured: false, available: false }];
      }),
    );
    const local = engines.get("espeak")?.health().available ?? false;
    res.json({
      status: local ? "ok" : "degraded",
      gpu_available: false,
      default_engine: engines.defaultEngine?.id ?? null,
      engines: report,
      voice_samples: voices.count,
    });
  });
  return router;
}
