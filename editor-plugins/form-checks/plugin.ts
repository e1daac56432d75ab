/**
 * Node-RED plugin (runtime side) behind the care nodes' edit forms, on the admin API and the
 * editor's login: the household's sensors, rooms and persons for the pickers, a cron
 * expression in plain words with its next fire times in `app.timezone`, and a rule tab as
 * the editor holds it checked by the very validator a deploy runs, so a problem shows while
 * the caregiver types and marks its node before deploy, and who a notification step would
 * reach (its level's default channels, and the people and screens behind its channels).
 */
import type { RequestHandler } from "express";
import type { AppContext } from "../../runtime/app/context";
import { checkTabDraft, cronPreview, householdChoices } from "../../runtime/care/core/rules/editor-checks";
import { knowledgeChoices } from "../../runtime/care/services/knowledge/delivery/knowledge-choices";
import { notificationAudience } from "../../runtime/care/services/notify/audience";

interface RedPluginApi {
  plugins: { registerPlugin(id: string, def: { type: string; onadd?: () => void }): void };
  httpAdmin: { get(path: string, ...handlers: RequestHandler[]): void; post(path: string, ...handlers: RequestHandler[]): void };
  auth: { needsPermission(permission: string): RequestHandler };
  settings: { careflow?: { ctx?: AppContext } };
}

export = function register(RED: RedPluginApi): void {
  RED.plugins.registerPlugin("careflow-form-checks", {
    type: "careflow-editor",
    onadd: () => {
      const read = RED.auth.needsPermission("flows.read");
      /** Runs `fn` with the app's context; answers a thrown 4xx with its detail. */
      const handle =
        (fn: (ctx: AppContext, req: Parameters<RequestHandler>[0]) => Promise<unknown> | unknown): RequestHandler =>
        (req, res, next) => {
          const ctx = RED.settings.careflow?.ctx;
          if (!ctx) return void res.status(503).json({ detail: "careflow is not attached" });
          Promise.resolve()
            .then(() => fn(ctx, req))
            .then((body) => res.json(body))
            .catch((err: { status?: number; message?: string }) =>
              err.status && err.status < 500 ? res.status(err.status).json({ detail: err.message }) : next(err),
            );
        };
      RED.httpAdmin.get(
        "/careflow/household",
        read,
        handle((ctx) => householdChoices(ctx)),
      );
      RED.httpAdmin.get(
        "/careflow/cron-preview",
        read,
        handle((ctx, req) => cronPreview(ctx, req.query.expression)),
      );
      RED.httpAdmin.get(
        "/careflow/knowledge-choices",
        read,
        handle((ctx, req) => knowledgeChoices(ctx, req.query.kind, req.socket.localPort)),
      );
      RED.httpAdmin.post(
        "/careflow/notification-audience",
        read,
        handle((ctx, req) => notificationAudience(ctx, req.body)),
      );
      RED.httpAdmin.post(
        "/careflow/check-tab",
        read,
        handle((ctx, req) => checkTabDraft(ctx, req.body)),
      );
    },
  });
};
