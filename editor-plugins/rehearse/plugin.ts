/**
 * Node-RED plugin (runtime side) of "Rehearse" (issue 27 §2) and "Draft from words" (§4) in
 * the editor, behind the editor's login: the tab's rule, or the tab as the editor holds it, is
 * rehearsed by the same service as `POST /rules/{id}/rehearse`, and each rehearsed run gets
 * the path it would have taken on the canvas. Both are reads for the editor's permissions
 * (nothing is saved or sent), as they are for caregivers on the REST API.
 */
import type { RequestHandler } from "express";
import type { AppContext } from "../../runtime/app/context";
import type { FlowNode } from "../../runtime/platform/nodered/flow-store";
import { rehearseRule } from "../../runtime/care/surfaces/rehearsal/rehearse.service";
import { draftFromWords } from "../../runtime/care/surfaces/rule-words/draft-from-words.service";
import { authoringModelReady, NO_AUTHORING_MODEL } from "../../runtime/care/services/knowledge/suggest/authoring-model";
import { rehearsedPath } from "./rehearsed-path";
import { WINDOWS, windowStart, type RehearsalWindow } from "./windows";

interface RedPluginApi {
  plugins: { registerPlugin(id: string, def: { type: string; onadd?: () => void }): void };
  httpAdmin: { get(path: string, ...handlers: RequestHandler[]): void; post(path: string, ...handlers: RequestHandler[]): void };
  auth: { needsPermission(permission: string): RequestHandler };
  settings: { careflow?: { ctx?: AppContext } };
}

/** A refusal as the REST API words it: a 4xx with its detail (and what is not set up), anything else a 500. */
function fail(res: Parameters<RequestHandler>[1], err: { status?: number; message?: string; notSetUp?: unknown }): void {
  const detail = err.message ?? "rehearsal failed";
  res.status(err.status && err.status < 500 ? err.status : 500).json(err.notSetUp ? { detail, not_set_up: err.notSetUp } : { detail });
}

export = function register(RED: RedPluginApi): void {
  RED.plugins.registerPlugin("careflow-rehearse", {
    type: "careflow-editor",
    onadd: () => {
      const read = RED.auth.needsPermission("flows.read");
      RED.httpAdmin.post("/careflow/tabs/:tab/rehearse", read, (req, res) => {
        const ctx = RED.settings.careflow?.ctx;
        if (!ctx) return void res.status(503).json({ detail: "careflow is not attached" });
        const tabId = req.params.tab;
        (async () => {
          const { flows, index } = await ctx.flows.snapshot();
          const row = index.rules.find((r) => r.tab_id === tabId);
          // The window is named by the editor and measured on the household's clock.
          const { window, ...rest } = (req.body ?? {}) as { window?: unknown; draft?: { flows?: FlowNode[] } };
          if (!WINDOWS.includes(window as RehearsalWindow)) return void res.status(422).json({ detail: `window: must be one of ${WINDOWS.join(", ")}` });
          const from = new Date(windowStart(window as RehearsalWindow, ctx.clock.now(), ctx.settings.app.timezone)).toISOString();
          // A tab never deployed (a rule drafted from words) is rehearsed as a new rule.
          if (!row && !rest.draft) return void res.status(404).json({ detail: "This tab has no deployed rule" });
          const answer = await rehearseRule(ctx, row ? row.id : null, { ...rest, from });
          const tabNodes = rest.draft?.flows ?? flows.filter((n) => n.z === tabId);
          const steps = row ? index.steps.filter((s) => s.rule_id === row.id) : [];
          res.json({
            ...answer,
            tab_id: tabId,
            rehearsed: answer.rehearsed.map((r) => ({ ...r, path: rehearsedPath(tabId, tabNodes, steps, r) })),
          });
        })().catch((err: { status?: number; message?: string }) => fail(res, err));
      });
      // Whether Draft from words can work here, asked when the editor opens: the button says so before anyone types.
      RED.httpAdmin.get("/careflow/rules/draft-from-words", read, (_req, res) => {
        const ctx = RED.settings.careflow?.ctx;
        if (!ctx) return void res.status(503).json({ detail: "careflow is not attached" });
        res.json(authoringModelReady(ctx.settings) ? { ready: true } : { ready: false, not_set_up: NO_AUTHORING_MODEL });
      });
      // Draft from words: the REST route's service; the editor opens the answer as a new, undeployed tab.
      RED.httpAdmin.post("/careflow/rules/draft-from-words", read, (req, res) => {
        const ctx = RED.settings.careflow?.ctx;
        if (!ctx) return void res.status(503).json({ detail: "careflow is not attached" });
        draftFromWords(ctx, req.body)
          .then((d) => res.json(d))
          .catch((err: { status?: number; message?: string }) => fail(res, err));
      });
    },
  });
};
