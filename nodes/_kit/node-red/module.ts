/**
 * The Node-RED node module: registers the rule trigger, every care node type of the
 * generated registry and the Devices tab's node types (device-nodes.ts). A node validates its config when a flow starts (red status on a
 * problem) and hands its input to the pipeline engine; a type without behaviour refuses
 * with an error naming what it lacks.
 */
import { checkConfig, migrateConfig } from "../config";
import { allSpecs, isAvailable, unavailableReason } from "../registry-types";
import { TRIGGER_NODE_TYPE, nodeRedType, type NodeSpec } from "../types";
import { registry } from "../../registry.generated";
import type { RedNodeApi, RedNodeConfig, RedNodeInstance } from "./red-api";
import { registerDeviceNodes } from "./device-nodes";

function careNode(RED: RedNodeApi, spec: NodeSpec) {
  const available = isAvailable(registry, spec);
  return function (this: RedNodeInstance, config: RedNodeConfig) {
    RED.nodes.createNode(this, config);
    const check = checkConfig(spec, migrateConfig(spec, config.config ?? {}, config.config_version ?? spec.version));
    if (!check.ok) this.status({ fill: "red", shape: "ring", text: check.problems[0].message });
    else if (!available) this.status({ fill: "grey", shape: "ring", text: `needs ${spec.pending ?? "a handler"}` });
    this.on("input", (msg, send, done) => {
      // The engine records every step of a run, including one that cannot run, so the run
      // fails visibly instead of ending early as if complete.
      const engine = RED.settings.careflow?.engine;
      if (engine) return engine.onInput(this, config, msg, send, done);
      if (!available) return done(new Error(unavailableReason(spec)));
      if (!check.ok) return done(new Error(`invalid config: ${check.problems.map((p) => p.message).join("; ")}`));
      done(new Error(`${spec.kind} '${spec.type}' cannot run: the pipeline engine is not attached`));
    });
  };
}

/** The trigger starts a rule's flow: the rules engine injects into it and it passes the message on. */
function triggerNode(RED: RedNodeApi) {
  return function (this: RedNodeInstance, config: RedNodeConfig) {
    RED.nodes.createNode(this, config);
    this.on("input", (msg, send, done) => {
      send(msg);
      done();
    });
  };
}

export = function register(RED: RedNodeApi): void {
  RED.nodes.registerType(TRIGGER_NODE_TYPE, triggerNode(RED));
  for (const spec of allSpecs(registry)) RED.nodes.registerType(nodeRedType(spec), careNode(RED, spec));
  registerDeviceNodes(RED);
};
