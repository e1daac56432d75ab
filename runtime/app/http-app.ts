/**
 * The HTTP app in the order a request meets it: the request-target guard, health, the public
 * pages (docs, the web app, the knowledge and household pages), then an address the throttle
 * blocked is refused before any key, password or secret is looked at; MCP, metrics, `/api/v1`
 * with the routers of the parts started here, and the embedded editor behind its key gate.
 */
import express from "express";
import type { AppContext } from "./context";
import type { Lifecycle } from "../platform/core/lifecycle";
import { requestTargetGuard } from "../platform/http/request-target";
import { FailureThrottle } from "../platform/auth/failure-throttle";
import { refuseBlockedAddress } from "../platform/auth/blocked-address";
import { editorLogin } from "../platform/nodered/admin-auth";
import { loginThrottle } from "../platform/nodered/login-throttle";
import { editorBearerGate } from "../platform/nodered/editor-bearer";
import { endSessionsOfGoneKeys } from "../platform/nodered/editor-sessions";
import { errorHandler, notFoundHandler } from "../platform/http/error-handler";
import { EDITOR_ROOT, nodeRedHost } from "../platform/nodered/host";
import { storedSessions } from "../platform/nodered/flow-store";
import { readableDeployErrors } from "../care/core/rules/deploy-messages";
import { APP_INFO_AT_ROOT, appInfoAtRoot, healthRouter } from "./ops/ops.router";
import { docsRouter } from "./ops/docs-pages";
import { webappRouter } from "./webapp/webapp.router";
import { knowledgePageRouter } from "./knowledge-page/knowledge-page.router";
import { householdPageRouter } from "./household-page/household-page.router";
import { apiV1 } from "./api-v1";
import { metricsRouter } from "./metrics/metrics.router";
import type { AppMetrics } from "./metrics/app-metrics";
import type { DeviceEndpoints } from "../household/devices/device-endpoints";
import { devicesRouter } from "../household/devices/devices.router";
import type { OccupancyBoard } from "../household/occupancy/occupancy.board";
import { occupancyRouter } from "../household/occupancy/occupancy.router";
import type { HubLink } from "../household/hub/hub";
import { haSyncRouter } from "../household/hub/ha-sync.router";
import { hubConnectionRouter } from "../household/hub/hub-connection.router";
import { ctsConnectionRouter } from "../household/cts/cts-connection.router";
import type { CtsService } from "../household/cts/cts.service";
import type { SceneSamples } from "../care/services/perception/scene-samples";
import type { CallLog } from "../care/surfaces/mcp/call-log";
import type { ToolRegistry } from "../care/surfaces/mcp/registry";
import type { McpSessions } from "../care/surfaces/mcp/server";
import { mcpRestRouter } from "../care/surfaces/mcp/mcp.router";
import type { VoiceCompanion } from "../care/surfaces/voice/voice-companion";
import { voiceRouter } from "../care/surfaces/voice/voice.router";
import type { ChatLink } from "../care/services/chat/chat.service";

/** The parts started before the HTTP app whose routes it mounts. */
export interface HttpParts {
  useNodeRed: boolean;
  lifecycle: Lifecycle;
  metrics: AppMetrics;
  deviceEndpoints: DeviceEndpoints;
  occupancy: OccupancyBoard;
  hub: HubLink;
  cts: CtsService;
  sceneSamples: SceneSamples;
  mcp: { sessions: McpSessions; tools: ToolRegistry; calls: CallLog };
  voice: VoiceCompanion;
  chat: ChatLink;
}

export function httpApp(ctx: AppContext, parts: HttpParts): { app: express.Express; throttle: FailureThrottle } {
  const { useNodeRed, lifecycle, metrics, deviceEndpoints, occupancy, hub, cts, sceneSamples, voice, chat } = parts;
  const { sessions: mcpSessions, tools: mcpTools, calls: mcpCalls } = parts.mcp;
  const { keys, log, clock, settings } = ctx;
  const app = express();
  app.disable("x-powered-by");
  app.use(requestTargetGuard);
  app.use(
    healthRouter(ctx, {
      startedAt: Date.now(),
      nodeRedState: () => (useNodeRed ? nodeRedHost.state : "disabled"),
      cts: () => cts.health(),
      sceneSamples: () => sceneSamples.status(),
      flowsRev: async () => (useNodeRed ? (await nodeRedHost.getFlows()).rev : null),
    }),
  );
  app.use(docsRouter());
  app.use(webappRouter());
  app.use(knowledgePageRouter());
  app.use(householdPageRouter());
  const throttle = new FailureThrottle(
    settings.auth.throttle,
    clock,
    (client, seconds) => log.warn({ client, seconds }, "too many wrong keys or passwords: address blocked"),
    (client, seconds) => log.warn({ client, seconds }, "a blocked address is still trying (told once a minute)"),
  );
  // Everything past the public pages needs a key, a password or a secret: a blocked address
  // is refused here, before any of them is looked at and before any body is read.
  app.use(refuseBlockedAddress(throttle));
  app.use(mcpSessions.router(keys, throttle));
  app.use(metricsRouter(keys, throttle, metrics));
  app.get(APP_INFO_AT_ROOT, appInfoAtRoot);
  app.use(
    "/api/v1",
    apiV1(ctx, throttle, { chat }, [
      (c) => devicesRouter(c, deviceEndpoints),
      () => occupancyRouter(occupancy),
      (c) => haSyncRouter(c, hub),
      (c) => hubConnectionRouter(c, hub),
      (c) => ctsConnectionRouter(c, () => cts.health()),
      (c) => mcpRestRouter(c, occupancy, mcpTools, mcpCalls),
      (c) => voiceRouter(c, voice),
    ]),
  );
  if (useNodeRed) {
    app.post(`${EDITOR_ROOT}/auth/token`, ...loginThrottle(throttle, async (user, password) => (await editorLogin(keys, user, password)) !== null));
    app.use(EDITOR_ROOT, editorBearerGate(keys, throttle));
    // A revoked or rotated key's editor sessions end too, wherever it was revoked (their comms sockets told and closed).
    const endGoneSessions = () =>
      void endSessionsOfGoneKeys(keys, () => storedSessions(ctx.db)).catch((err: unknown) =>
        log.warn({ err }, "the editor sessions of a revoked key could not be ended"),
      );
    lifecycle.add("revoked keys' editor sessions", ctx.bus.subscribe("key.revoked", endGoneSessions, { otherInstances: true }));
    app.post(`${EDITOR_ROOT}/flows`, readableDeployErrors);
    app.use(EDITOR_ROOT, nodeRedHost.admin);
    app.use(nodeRedHost.httpNode);
  }
  app.use(notFoundHandler);
  app.use(errorHandler(log));

  return { app, throttle };
}
