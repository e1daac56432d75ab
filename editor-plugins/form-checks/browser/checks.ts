/**
 * Node-RED plugin (editor side): keeps the open rule tab checked by the deploy's validator.
 * Whenever the flows change it sends the tab as the editor holds it to `careflow/check-tab`
 * and marks each care node with an error with Node-RED's red triangle (through
 * `careflowForm.serverErrors`, read by the nodes' validate function), so a broken rule is
 * visible before Deploy. `careflowChecks.checkNode` does the same for one node with the
 * values of its open edit dialog, for the form to show under its fields.
 */
RED.plugins.registerPlugin("careflow-form-checks", {
  type: "careflow-editor",
  onadd: () => {
    /** What `careflow/check-tab` answers. */
    interface CheckResult {
      problems?: CareflowProblem[];
    }
    interface TabDraft {
      tab_id: string;
      nodes: RedExportedNode[];
    }

    function isRuleTab(tabId: string): boolean {
      let found = false;
      RED.nodes.eachNode((n) => {
        if (n.z === tabId && n.type === "care-trigger") found = true;
      });
      return found;
    }
    // The tab as a deploy would send it, with one node's config replaced when asked.
    function tabDraft(tabId: string, nodeId?: string, config?: Record<string, unknown>): TabDraft {
      const ws = RED.nodes.workspace(tabId);
      const nodes = RED.nodes.createExportableNodeSet(RED.nodes.filterNodes({ z: tabId }));
      nodes.forEach((n) => {
        if (n.id === nodeId) n.config = config;
      });
      nodes.push({ id: tabId, type: "tab", label: ws ? ws.label : "", disabled: ws ? !!ws.disabled : false });
      return { tab_id: tabId, nodes };
    }
    function post(draft: TabDraft): JQueryXHR<CheckResult> {
      return $.ajax<CheckResult>({ method: "POST", url: "careflow/check-tab", contentType: "application/json", data: JSON.stringify(draft) });
    }
    function mark(tabId: string, problems: CareflowProblem[]): void {
      const errors = window.careflowForm.serverErrors;
      Object.keys(errors).forEach((id) => {
        const n = RED.nodes.node(id);
        if (!n || n.z === tabId) delete errors[id];
      });
      problems.forEach((p) => {
        if (p.severity !== "error" || p.node_id === tabId) return;
        (errors[p.node_id] = errors[p.node_id] || []).push(p.text);
      });
      RED.nodes.filterNodes({ z: tabId }).forEach((n) => {
        RED.editor.validateNode(n);
        n.dirty = true;
      });
      RED.view.redraw(true);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    function checkActiveTab(): void {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const tabId = RED.workspaces.active();
        if (!tabId || !isRuleTab(tabId)) return;
        post(tabDraft(tabId)).done((r) => mark(tabId, r.problems || []));
      }, 500);
    }
    ["nodes:add", "nodes:change", "nodes:remove", "links:add", "links:remove", "workspace:change", "flows:loaded"].forEach((e) =>
      RED.events.on(e, checkActiveTab),
    );

    window.careflowChecks = {
      /** The problems of one node with the given (not yet saved) config: the form's inline check. */
      checkNode: (node, config, done) => {
        if (!node.z || !isRuleTab(node.z)) return done([]);
        post(tabDraft(node.z, node.id, config))
          .done((r) => done((r.problems || []).filter((p) => p.node_id === node.id)))
          .fail(() => done([]));
      },
      checkActiveTab,
    };
  },
});
