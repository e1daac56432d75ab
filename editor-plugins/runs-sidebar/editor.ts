/**
 * Node-RED plugin (editor side): the "Care runs" sidebar tab (pinned, so it stays in the tab
 * bar at any width). It lists live and recent runs, updated as events arrive; a run with a
 * warning (a notification that reached nobody, say) is marked. Opening a run shows its
 * timeline: per step its status, time, port taken, what it read and wrote, its own trace
 * (the message it rendered, a model's prompt, images and answer), each channel's receipt,
 * errors and warnings; and lights up its path on the canvas: nodes that ran with their
 * status, links taken, skipped nodes greyed out, the node where it waits or failed shown.
 * "Run now" (the sidebar's button, or a rule trigger node's button) tries the tab's rule
 * with a sample trigger. While the page is open it tells the server it is watching, every
 * 20 s, so the server forwards run events only then.
 */
export const RUNS_SIDEBAR_SCRIPT = String.raw`
RED.plugins.registerPlugin("careflow-runs-sidebar", {
  type: "careflow-editor",
  onadd: function () {
    $("<style>").text(
      ".careflow-skipped { opacity: 0.3; }" +
      ".careflow-link-taken .red-ui-flow-link-line { stroke: #3a9b3a !important; stroke-width: 4px !important; }" +
      ".careflow-step-detail pre { max-height: 160px; overflow: auto; background: #f7f7f7; padding: 4px; margin: 2px 0 6px; white-space: pre-wrap; word-break: break-word; font-size: 11px; }" +
      ".careflow-step-detail h4 { margin: 6px 0 2px; font-size: 12px; }"
    ).appendTo("head");
    var root = $('<div style="padding:8px;overflow-y:auto;height:100%;font-size:13px"></div>');
    var bar = $('<div style="margin-bottom:8px"></div>').appendTo(root);
    $('<button type="button" class="red-ui-button careflow-run-now"><i class="fa fa-play"></i> Run now</button>')
      .attr("title", "Run the rule of this tab with a sample trigger")
      .on("click", function () { runNow(RED.workspaces.active()); })
      .appendTo(bar);
    var list = $("<div></div>").appendTo(root);
    var detail = $('<div style="display:none"></div>').appendTo(root);
    var colors = { running: "#2e7bcf", waiting: "#d9a300", completed: "#3a9b3a", failed: "#c0392b", cancelled: "#777", skipped: "#aaa", success: "#3a9b3a", pending: "#aaa" };
    function badge(status) { return $('<span style="display:inline-block;min-width:70px;padding:1px 6px;border-radius:3px;color:#fff;font-size:11px;text-align:center"></span>').css("background", colors[status] || "#777").text(status); }
    function when(iso) { return iso ? new Date(iso).toLocaleTimeString() : ""; }
    function json(v) { return JSON.stringify(v, null, 2); }

    function renderList(runs) {
      list.empty();
      $('<div style="font-weight:bold;margin-bottom:6px">Live and recent runs</div>').appendTo(list);
      if (!runs.length) $('<div style="opacity:0.7">No runs yet. Run a rule with its trigger, or with "Run now".</div>').appendTo(list);
      runs.forEach(function (r) {
        var row = $('<div class="careflow-run" style="padding:4px 2px;border-bottom:1px solid #eee;cursor:pointer"></div>').attr("data-execution", r.execution_id);
        badge(r.status).appendTo(row);
        $("<span></span>").text(" #" + r.execution_id + " " + r.rule_name + " · " + when(r.triggered_at)).appendTo(row);
        if (r.warnings && r.warnings.length) $('<span class="careflow-run-warning" style="margin-left:6px;color:#b36b00" title=""><i class="fa fa-exclamation-triangle"></i> needs a look</span>').attr("title", r.warnings.join("\n")).appendTo(row);
        row.on("click", function () { openRun(r.execution_id, true); });
        row.appendTo(list);
      });
    }
    function refresh() { if (detail.is(":hidden")) $.getJSON("careflow/runs", renderList); else openRun(detail.data("id"), false); }

    function section(box, title, body) {
      $("<h4></h4>").text(title).appendTo(box);
      $("<pre></pre>").text(body).appendTo(box);
    }
    function stepDetail(s) {
      var box = $('<div class="careflow-step-detail" style="padding:0 4px 6px 8px"></div>');
      if (Object.keys(s.inputs || {}).length) section(box, "Read", json(s.inputs));
      if (Object.keys(s.outputs || {}).length) section(box, "Wrote", json(s.outputs));
      var t = s.trace || {};
      if (t.message) section(box, "Message", t.message);
      if (t.model) section(box, "Model", t.model);
      if (t.prompt) section(box, "Prompt", t.prompt);
      if (t.images && t.images.length) section(box, "Images sent", t.images.join("\n"));
      if (t.answer) section(box, "Answer", t.answer);
      if (!box.children().length) $('<div style="opacity:0.7">Nothing recorded for this step.</div>').appendTo(box);
      return box;
    }
    function openRun(id, reveal) {
      $.getJSON("careflow/runs/" + id, function (d) {
        list.hide();
        detail.empty().data("id", id).show();
        $('<a href="#" style="display:block;margin-bottom:6px">&larr; all runs</a>').on("click", function (e) { e.preventDefault(); clearPath(); detail.hide(); list.show(); refresh(); }).appendTo(detail);
        var head = $('<div style="margin-bottom:8px"></div>').appendTo(detail);
        badge(d.status).appendTo(head);
        $("<b></b>").text(" #" + d.id + " " + d.rule_name).appendTo(head);
        $('<div style="opacity:0.75"></div>').text(d.trigger_summary + " · started " + when(d.started_at) + (d.resume_at ? " · resumes " + when(d.resume_at) : "")).appendTo(detail);
        var table = $('<table style="width:100%;margin-top:8px;border-collapse:collapse"></table>').appendTo(detail);
        d.timeline.forEach(function (s) {
          var tr = $('<tr class="careflow-step" style="border-bottom:1px solid #eee;cursor:pointer"></tr>').attr("data-step", s.step_id).appendTo(table);
          $('<td style="padding:3px"></td>').append(badge(s.status)).appendTo(tr);
          $('<td style="padding:3px"></td>').text(s.label + " (" + s.step_type + ")").appendTo(tr);
          $('<td style="padding:3px;text-align:right"></td>').text(s.elapsed_seconds === null ? "" : (s.elapsed_seconds * 1000).toFixed(1) + " ms").appendTo(tr);
          $('<td style="padding:3px"></td>').text(s.output_port ? "→ " + s.output_port : "").appendTo(tr);
          if (s.error) $('<tr><td></td><td colspan="3" style="color:#c0392b;padding:0 3px 4px"></td></tr>').appendTo(table).find("td:last").text(s.error);
          if (s.warning) $('<tr class="careflow-step-warning"><td></td><td colspan="3" style="color:#b36b00;padding:0 3px 4px"></td></tr>').appendTo(table).find("td:last").text("⚠ " + s.warning);
          (s.receipts || []).forEach(function (rc) {
            $('<tr class="careflow-receipt"><td></td><td colspan="3" style="padding:0 3px 2px;font-size:12px"></td></tr>').appendTo(table).find("td:last")
              .css("color", rc.delivered ? "#3a9b3a" : "#c0392b").text((rc.delivered ? "✓ " : "✗ ") + rc.channel + (rc.detail ? ": " + rc.detail : ""));
          });
          var more = $('<tr class="careflow-step-more" style="display:none"><td colspan="4"></td></tr>').appendTo(table);
          more.find("td").append(stepDetail(s));
          tr.on("click", function () {
            more.toggle();
            if (RED.nodes.node(s.node_id)) RED.view.reveal(s.node_id);
          });
        });
        (d.errors || []).forEach(function (e) { $('<div style="color:#c0392b;margin-top:6px"></div>').text(e).appendTo(detail); });
        (d.warnings || []).forEach(function (w) { $('<div class="careflow-run-warning" style="color:#b36b00;margin-top:6px"></div>').text("⚠ " + w).appendTo(detail); });
        showPath(d.path, reveal);
      });
    }

    // The run's path on the canvas. Statuses set here are the editor's own; they are put back
    // as they were when the run is closed.
    var STATUS = {
      fired: { fill: "blue", shape: "dot" }, passed: { fill: "green", shape: "ring" }, success: { fill: "green", shape: "dot" },
      failed: { fill: "red", shape: "dot" }, waiting: { fill: "yellow", shape: "ring" }, skipped: { fill: "grey", shape: "ring" },
      pending: { fill: "grey", shape: "ring" }, running: { fill: "blue", shape: "ring" }
    };
    var shown = null;
    function showPath(path, reveal) {
      clearPath();
      if (!path) return;
      shown = { path: path, saved: {} };
      path.nodes.forEach(function (p) {
        var n = RED.nodes.node(p.node_id);
        if (!n) return;
        shown.saved[p.node_id] = n.status;
        var s = STATUS[p.state] || STATUS.pending;
        n.status = { fill: s.fill, shape: s.shape, text: p.text };
        n.dirty = true; n.dirtyStatus = true;
      });
      if (reveal && RED.workspaces.contains(path.tab_id)) {
        RED.workspaces.show(path.tab_id);
        if (path.focus && RED.nodes.node(path.focus)) RED.view.reveal(path.focus);
      }
      RED.view.redraw(true);
      paint();
    }
    function clearPath() {
      if (!shown) return;
      Object.keys(shown.saved).forEach(function (id) {
        var n = RED.nodes.node(id);
        if (!n) return;
        n.status = shown.saved[id];
        n.dirty = true; n.dirtyStatus = true;
      });
      shown = null;
      $(".careflow-skipped").removeClass("careflow-skipped");
      $(".careflow-link-taken").removeClass("careflow-link-taken");
      RED.view.redraw(true);
    }
    // Classes on the canvas's SVG: applied again whenever the view redraws a tab.
    function paint() {
      if (!shown) return;
      var skipped = {}, taken = {};
      shown.path.nodes.forEach(function (p) { if (p.state === "skipped") skipped[p.node_id] = true; });
      shown.path.links.forEach(function (l) { taken[l.source + ":" + l.port] = true; });
      $(".red-ui-flow-node-group").each(function () { if (skipped[this.id]) this.classList.add("careflow-skipped"); });
      $(".red-ui-flow-link").each(function () {
        var l = this.__data__;
        if (l && l.source && taken[l.source.id + ":" + (l.sourcePort || 0)]) this.classList.add("careflow-link-taken");
      });
    }
    RED.events.on("workspace:change", function () { setTimeout(paint, 50); });

    // Run now: the tab's rule with a sample trigger of its own kind.
    function sampleFor(tabId) {
      var trigger = null;
      RED.nodes.eachNode(function (n) { if (n.z === tabId && n.type === "care-trigger") trigger = n; });
      var t = (trigger && trigger.config) || {};
      var sample = { sensor_id: t.primary_sensor_id || null, room_name: null };
      if (t.trigger_type === "webhook") sample.webhook_payload = { example: "value" };
      if (t.trigger_type === "occupancy_duration") sample.occupancy_duration_minutes = (t.occupancy_config && t.occupancy_config.min_minutes) || 30;
      return sample;
    }
    function runNow(tabId) {
      if (RED.nodes.dirty()) { RED.notify("Deploy your changes first: Run now runs the deployed rule.", "warning"); return; }
      var box = $('<div><p>Sample trigger (JSON): what the rule\'s trigger would carry.</p><textarea class="careflow-sample" style="width:100%;height:140px;font-family:monospace"></textarea></div>');
      box.find("textarea").val(json(sampleFor(tabId)));
      box.dialog({
        title: "Run this rule now", modal: true, width: 460,
        buttons: [
          { text: "Cancel", click: function () { $(this).dialog("close"); } },
          { text: "Run", class: "primary careflow-run-now-go", click: function () {
            var dlg = $(this), sample;
            try { sample = JSON.parse(dlg.find("textarea").val()); } catch (e) { RED.notify("The sample is not JSON: " + e.message, "error"); return; }
            $.ajax({ method: "POST", url: "careflow/tabs/" + encodeURIComponent(tabId) + "/run", contentType: "application/json", data: JSON.stringify(sample) })
              .done(function (r) { dlg.dialog("close"); RED.notify("Run #" + r.execution_id + " started", "success"); RED.sidebar.show("careflow-runs"); openRun(r.execution_id, false); })
              .fail(function (x) { RED.notify("Run now refused: " + ((x.responseJSON && x.responseJSON.detail) || x.statusText), "error"); });
          } }
        ],
        close: function () { $(this).dialog("destroy").remove(); }
      });
    }
    RED.careflow = RED.careflow || {};
    RED.careflow.runNow = runNow;

    RED.sidebar.addTab({ id: "careflow-runs", label: "Care runs", name: "Care runs", iconClass: "fa fa-heartbeat", content: root, enableOnEdit: true, onchange: refresh });
    // Its button goes right after "info" once the core tabs are in: the tab bar hides buttons
    // from its end when narrow, and would otherwise put this one last, in the overflow.
    function placeButton() {
      var button = $("#red-ui-tab-careflow-runs-link-button");
      var info = $("#red-ui-tab-info-link-button");
      if (!button.length || !info.length || button.prev().is(info)) return;
      button.insertAfter(info).show();
      $(window).trigger("resize");
    }
    RED.events.on("flows:loaded", placeButton);
    setTimeout(placeButton, 500);
    var pending = null;
    RED.comms.subscribe("careflow/pipeline", function () {
      if (pending) return;
      pending = setTimeout(function () { pending = null; refresh(); }, 250);
    });
    // The server forwards run events only while an editor says it is watching (60 s after the last).
    function watch() { $.ajax({ method: "POST", url: "careflow/runs/watch" }); }
    watch();
    setInterval(watch, 20000);
    refresh();
  }
});
`;
