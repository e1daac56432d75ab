/**
 * Node-RED plugin (editor side): a "care runs" sidebar listing live and recent runs,
 * updated as events arrive; clicking a run opens its timeline (steps, status, time,
 * port taken, error, warning, each channel's delivery receipt). A run with a warning (a
 * notification that reached nobody, say) is marked in the list. While the page is open it tells the server it is watching, every
 * 20 s, so the server forwards run events only then.
 */
export const RUNS_SIDEBAR_SCRIPT = String.raw`
RED.plugins.registerPlugin("careflow-runs-sidebar", {
  type: "careflow-editor",
  onadd: function () {
    var root = $('<div style="padding:8px;overflow-y:auto;height:100%;font-size:13px"></div>');
    var list = $("<div></div>").appendTo(root);
    var detail = $('<div style="display:none"></div>').appendTo(root);
    var colors = { running: "#2e7bcf", waiting: "#d9a300", completed: "#3a9b3a", failed: "#c0392b", cancelled: "#777", skipped: "#aaa", success: "#3a9b3a", pending: "#aaa" };
    function badge(status) { return $('<span style="display:inline-block;min-width:70px;padding:1px 6px;border-radius:3px;color:#fff;font-size:11px;text-align:center"></span>').css("background", colors[status] || "#777").text(status); }
    function when(iso) { return iso ? new Date(iso).toLocaleTimeString() : ""; }
    function renderList(runs) {
      list.empty();
      $('<div style="font-weight:bold;margin-bottom:6px">Live and recent runs</div>').appendTo(list);
      if (!runs.length) $('<div style="opacity:0.7">No runs yet. Run a rule with its trigger, or POST /api/v1/rules/{id}/execute.</div>').appendTo(list);
      runs.forEach(function (r) {
        var row = $('<div class="careflow-run" style="padding:4px 2px;border-bottom:1px solid #eee;cursor:pointer"></div>').attr("data-execution", r.execution_id);
        badge(r.status).appendTo(row);
        $("<span></span>").text(" #" + r.execution_id + " " + r.rule_name + " · " + when(r.triggered_at)).appendTo(row);
        if (r.warnings && r.warnings.length) $('<span class="careflow-run-warning" style="margin-left:6px;color:#b36b00" title=""><i class="fa fa-exclamation-triangle"></i> needs a look</span>').attr("title", r.warnings.join("\n")).appendTo(row);
        row.on("click", function () { openRun(r.execution_id); });
        row.appendTo(list);
      });
    }
    function refresh() { if (detail.is(":hidden")) $.getJSON("careflow/runs", renderList); else openRun(detail.data("id")); }
    function openRun(id) {
      $.getJSON("careflow/runs/" + id, function (d) {
        list.hide();
        detail.empty().data("id", id).show();
        $('<a href="#" style="display:block;margin-bottom:6px">&larr; all runs</a>').on("click", function (e) { e.preventDefault(); detail.hide(); list.show(); refresh(); }).appendTo(detail);
        var head = $('<div style="margin-bottom:8px"></div>').appendTo(detail);
        badge(d.status).appendTo(head);
        $("<b></b>").text(" #" + d.id + " " + d.rule_name).appendTo(head);
        $('<div style="opacity:0.75"></div>').text(d.trigger_summary + " · started " + when(d.started_at) + (d.resume_at ? " · resumes " + when(d.resume_at) : "")).appendTo(detail);
        var table = $('<table style="width:100%;margin-top:8px;border-collapse:collapse"></table>').appendTo(detail);
        d.timeline.forEach(function (s) {
          var tr = $('<tr class="careflow-step" style="border-bottom:1px solid #eee"></tr>').appendTo(table);
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
        });
        (d.errors || []).forEach(function (e) { $('<div style="color:#c0392b;margin-top:6px"></div>').text(e).appendTo(detail); });
        (d.warnings || []).forEach(function (w) { $('<div class="careflow-run-warning" style="color:#b36b00;margin-top:6px"></div>').text("⚠ " + w).appendTo(detail); });
      });
    }
    RED.sidebar.addTab({ id: "careflow-runs", label: "runs", name: "Care runs", iconClass: "fa fa-heartbeat", content: root, enableOnEdit: true, onchange: refresh });
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
