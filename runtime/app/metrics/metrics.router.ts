/**
 * `GET /metrics`, beside `/health` rather than under `/api/v1`: where Prometheus looks by
 * default. Behind a key: an admin key or one with the `metrics` role, which may read this and
 * nothing else. Prometheus sends it as `Authorization: Bearer <key>` (its `authorization`
 * scrape setting); `X-API-Key` and `?api_key=` work as everywhere.
 */
import { Router } from "express";
import { authenticate } from "../../platform/auth/authenticate";
import type { FailureThrottle } from "../../platform/auth/failure-throttle";
import type { KeyStore } from "../../platform/auth/key-store";
import type { AppMetrics } from "./app-metrics";

export function metricsRouter(keys: KeyStore, throttle: FailureThrottle, metrics: AppMetrics): Router {
  const r = Router();
  r.get("/metrics", authenticate(keys, throttle, "bearer"), (_req, res, next) => {
    metrics
      .scrape()
      .then((text) => {
        // Written as the library gives it: Express's send would reorder the content type's parameters and add an ETag.
        res.setHeader("Content-Type", metrics.contentType);
        res.setHeader("Cache-Control", "no-store");
        res.end(text);
      })
      .catch(next);
  });
  return r;
}
