/**
 * Node-RED plugin (editor side): keeps the open rule tab checked by the deploy's validator.
 * Whenever the flows change it sends the tab as the editor holds it to `careflow/check-tab`
 * and marks each care node with an error with Node-RED's red triangle (through
 * `careflowForm.serverErrors`, read by the nodes' validate function), so a broken rule is
 * visible before Deploy. `careflowChecks.checkNode` does the same for one node with the
 * values of its open edit dialog, for the form to show under its fields.
 */
export const FORM_CHECKS_SCRIPT = String.raw`
RED.plugins.registerPlugin("careflow-form-checks", {
  type: "careflow-editor",
  onadd: function () {
    function isRuleTab(tabId) {
      var found = false;
      RED.nodes.eachNode(function (n) { if (n.z === tabId && n.type === "care-trigger") found = true; });
      return found;
    }
    // The tab as a deploy would send it, with one node's config replaced when asked.
    function tabDraft(tabId, nodeId, config) {
      var ws = RED.nodes.workspace(tabId);
      var nodes = RED.nodes.createExportableNodeSet(RED.nodes.filterNodes({ z: tabId }));
      nodes.forEach(function (n) { if (n.id === nodeId) n.config = config; });
      nodes.push({ id: tabId, type: "tab", label: ws ? ws.label : "", disabled: ws ? !!ws.disabled : false });
      return { tab_id: tabId, nodes: nodes };
    }
    function post(draft) {
      return $.ajax({ method: "POST", url: "careflow/check-tab", contentType: "application/json", data: JSON.stringify(draft) });
    }
    function mark(tabId, problems) {
      var errors = window.careflowForm.serverErrors;
      Object.keys(errors).forEach(function (id) { var n = RED.nodes.node(id); if (!n || n.z === tabId) delete errors[id]; });
      problems.forEach(function (p) {
        if (p.severity !== "error" || p.node_id === tabId) return;
        (errors[p.node_id] = errors[p.node_id] || []).push(p.text);
      });
      RED.nodes.filterNodes({ z: tabId }).forEach(function (n) { RED.editor.validateNode(n); n.dirty = true; });
      RED.view.redraw(true);
    }
    var timer = null;
    function checkActiveTab() {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var tabId = RED.workspaces.active();
        if (!tabId || !isRuleTab(tabId)) return;
        post(tabDraft(tabId)).done(function (r) { mark(tabId, r.problems || []); });
      }, 500);
    }
    ["nodes:add", "nodes:change", "nodes:remove", "links:add", "links:remove", "workspace:change", "flows:loaded"].forEach(function (e) { RED.events.on(e, checkActiveTab); });

    window.careflowChecks = {
      /** The problems of one node with the given (not yet saved) config: the form's inline check. */
      checkNode: function (node, config, done) {
        if (!node.z || !isRuleTab(node.z)) return done([]);
        post(tabDraft(node.z, node.id, config))
          .done(function (r) { done((r.problems || []).filter(function (p) { return p.node_id === node.id; })); })
          .fail(function () { done([]); });
      },
      checkActiveTab: checkActiveTab
    };
  }
});
`;
