/**
 * Node-RED plugin (runtime side): serves the data keys of `/pipeline/data-keys` on the
 * admin API, behind the editor's own login, so the edit forms can complete `{{key}}`.
 */
import type { RequestHandler } from "express";
import { dataKeys } from "../../runtime/care/core/language/catalog/catalog.service";

interface RedPluginApi {
  plugins: { registerPlugin(id: string, def: { type: string; onadd?: () => void }): void };
  httpAdmin: { get(path: string, ...handlers: RequestHandler[]): void };
  auth: { needsPermission(permission: string): RequestHandler };
}

const DATA_KEYS_ADMIN_PATH = "/careflow/data-keys";

export = function register(RED: RedPluginApi): void {
  RED.plugins.registerPlugin("careflow-template-autocomplete", {
    type: "careflow-editor",
    onadd: () => {
      RED.httpAdmin.get(DATA_KEYS_ADMIN_PATH, RED.auth.needsPermission("flows.read"), (_req, res) => {
        res.json({ keys: dataKeys() });
      });
    },
  });
};
