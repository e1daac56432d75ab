/**
 * Node-RED plugin (runtime side) of the runs sidebar: recent runs and one run's detail (with
 * signed URLs of its camera frames) on the admin API, and live run events forwarded to the
 * editor over Node-RED's own comms channel (topic `careflow/pipeline`), all behind the
 * editor's login. Events are forwarded only while an editor is watching: the sidebar posts
 * `/careflow/runs/watch` every 20 s.
 */
import type { RequestHandler } from "express";
import type { AppContext } from "../../runtime/app/context";
import type { PipelineEngine } from "../../runtime/care/core/pipeline/engine/engine";
import { detailView } from "../../runtime/care/core/pipeline/runs/run-detail";
import { runFrames } from "../../runtime/care/core/pipeline/runs/run-frames";
import { runWords } from "../../runtime/care/core/pipeline/runs/run-words";
import { envelope, getRun, queryRuns, tryRuleOfTab } from "../../runtime/care/core/pipeline/runs/runs.service";
import { RunsWatch } from "./watch";

interface RedPluginApi {
  plugins: { registerPlugin(id: string, def: { type: string; onadd?: () => void }): void };
  httpAdmin: { get(path: string, ...handlers: RequestHandler[]): void; post(path: string, ...handlers: RequestHandler[]): void };
  auth: { needsPermission(permission: string): RequestHandler };
  events: { emit(event: "comms", payload: { topic: string; data: unknown; retain?: boolean }): void };
  settings: { careflow?: { ctx?: AppContext; engine?: PipelineEngine } };
}

export = function register(RED: RedPluginApi): void {
  RED.plugins.registerPlugin("careflow-runs-sidebar", {
    type: "careflow-editor",
    onadd: () => {
      const ctx = () => RED.settings.careflow?.ctx;
      const read = RED.auth.needsPermission("flows.read");
      RED.httpAdmin.get("/careflow/runs", read, (_req, res, next) => {
        const c = ctx();
        if (!c) return void res.status(503).json({ detail: "careflow is not attached" });
        queryRuns(c, { limit: 30 })
          .then((rows) => res.json(rows.map(envelope)))
          .catch(next);
      });
      RED.httpAdmin.get("/careflow/runs/:id", read, (req, res, next) => {
        const c = ctx();
        const id = Number(req.params.id);
        if (!c || !Number.isInteger(id)) return void res.status(404).json({ detail: "not found" });
        getRun(c, id)
          .then(async (row) => res.json(detailView(row, await runFrames(c, row), await runWords(c))))
          .catch((err: { status?: number; message?: string }) => (err.status === 404 ? res.status(404).json({ detail: err.message }) : next(err)));
      });
      // "Run now" from a rule's trigger node: a write, so the editor's write permission.
      RED.httpAdmin.post("/careflow/tabs/:tab/run", RED.auth.needsPermission("flows.write"), (req, res) => {
        const c = ctx();
        if (!c) return void res.status(503).json({ detail: "careflow is not attached" });
        // Node-RED's login puts the editor user on the request: the run says who started it.
        const user = (req as { user?: { username?: unknown } }).user;
        tryRuleOfTab(c, req.params.tab, req.body, typeof user?.username === "string" ? user.username : undefined)
          .then((r) => res.status(201).json(r))
          .catch((err: { status?: number; message?: string }) =>
            res.status(err.status && err.status < 500 ? err.status : 500).json({ detail: err.message ?? "run failed to start" }),
          );
      });
      const watching = new RunsWatch({ forward: (event) => RED.events.emit("comms", { topic: "careflow/pipeline", data: event }) });
      RED.httpAdmin.post("/careflow/runs/watch", read, (_req, res) => {
        const engine = RED.settings.careflow?.engine;
        if (!engine) return void res.status(503).json({ detail: "careflow is not attached" });
        watching.watch(engine.live);
        res.status(204).end();
      });
    },
  });
};
