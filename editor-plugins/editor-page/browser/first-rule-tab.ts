/**
 * The editor opens on the first care rule's tab, not on the locked Devices tab (which stays,
 * usually first in the tab order because a new store has it before the example rules). Node-RED
 * shows the first tab unless the address names one (`#flow/...`, `#node/...`): only then, and
 * only on the first load, the first tab holding a rule trigger is shown instead. A household
 * without rules keeps Node-RED's choice.
 */
RED.plugins.registerPlugin("careflow-first-rule-tab", {
  type: "careflow-editor",
  onadd: () => {
    // Read now: by the time the flows are loaded the editor has written its own hash.
    const linked = /^#(flow|node|group)\/./.test(window.location.hash);
    let done = linked;
    RED.events.on("flows:loaded", () => {
      if (done) return;
      done = true;
      const ruleTabs = new Set<string>();
      RED.nodes.eachNode((n) => {
        if (n.type === "care-trigger" && n.z) ruleTabs.add(n.z);
      });
      if (ruleTabs.has(RED.workspaces.active())) return;
      const first = RED.nodes.getWorkspaceOrder().find((id) => ruleTabs.has(id));
      if (first) RED.workspaces.show(first);
    });
  },
});
