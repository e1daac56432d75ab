/**
 * Node-RED plugin (editor side): the "Rehearse" sidebar tab (issue 27 §2). On a rule's tab it
 * rehearses the tab as the editor holds it (undeployed changes included) over the last 24 h,
 * three nights or 7 days, and shows the would-be runs on a timeline beside the real ones:
 * alerts marked, the difference in words, warnings and what could not be rehearsed. A run
 * opens its path on the canvas through the runs sidebar's own display: a rehearsed run with
 * the path the server built for it, a real run with its recorded path.
 */
RED.plugins.registerPlugin("careflow-rehearse", {
  type: "careflow-editor",
  onadd: () => {
    // What `careflow/tabs/{tab}/rehearse` answers (editor-plugins/rehearse/plugin.ts).
    interface WouldSend {
      at: string;
      kind: string;
      target: string;
      text: string;
      alert_level?: string;
      /** In words: "would send to the family chat: “…”". */
      said: string;
    }
    interface RunStep {
      label: string;
      step_type: string;
      status: string;
      output_ports: string[];
      error?: string;
    }
    interface RehearsalRun {
      execution_id: number;
      started_at: string;
      status: string;
      alerted: boolean;
      /** What makes the run "needs a look" (a notification that reached no channel, ...). */
      warnings?: string[];
      steps: RunStep[];
      would_send?: WouldSend[];
      path?: CareflowRunPath;
    }
    interface Rehearsal {
      rule_name: string;
      draft: boolean;
      from: string;
      to: string;
      inputs_replayed: number;
      rehearsed: RehearsalRun[];
      actual: RehearsalRun[];
      hand_started?: RehearsalRun[];
      difference: { rehearsed_alerts: number; actual_alerts: number; new_alerts: string[]; missing_alerts: string[]; summary: string };
      not_rehearsed: Array<{ at: string; service: string; reason: string }>;
      recorded_answers: Array<{ at: string; service: string; execution_id: number | null; from_execution_id: number }>;
      warnings: string[];
      elapsed_ms: number;
    }
    const WINDOWS: Array<[string, string]> = [
      ["24h", "Last 24 h"],
      ["3n", "3 nights"],
      ["7d", "7 days"],
    ];

    $("<style>")
      .text(
        ".careflow-lane { position: relative; height: 26px; border-bottom: 1px solid #ddd; background: #fafafa; margin-left: 70px; }" +
          ".careflow-lane-label { position: absolute; left: -70px; top: 5px; width: 66px; font-size: 11px; color: #555; }" +
          ".careflow-dot { position: absolute; top: 8px; width: 10px; height: 10px; margin-left: -5px; border-radius: 50%; background: #9aa; cursor: pointer; }" +
          ".careflow-dot.careflow-alert { background: #c0392b; top: 6px; width: 14px; height: 14px; margin-left: -7px; }" +
          ".careflow-dot.careflow-new { box-shadow: 0 0 0 3px #f5b041; z-index: 2; }" +
          ".careflow-dot.careflow-missing { box-shadow: 0 0 0 3px #5dade2; z-index: 2; }" +
          ".careflow-dot.careflow-open { outline: 2px solid #2e7bcf; outline-offset: 2px; }" +
          ".careflow-axis { position: relative; height: 16px; margin-left: 70px; font-size: 10px; color: #777; }" +
          ".careflow-axis span { position: absolute; transform: translateX(-50%); white-space: nowrap; }" +
          ".careflow-rehearsed-run, .careflow-actual-run { padding: 3px 2px; border-bottom: 1px solid #eee; cursor: pointer; }" +
          ".careflow-would-send { font-size: 11px; color: #555; margin-left: 14px; }",
      )
      .appendTo("head");

    const root = $('<div class="careflow-rehearse" style="padding:8px;overflow-y:auto;height:100%;font-size:13px"></div>');
    $('<div style="font-weight:bold;margin-bottom:4px">Rehearse this rule</div>').appendTo(root);
    $(
      '<div style="opacity:0.75;margin-bottom:6px">What the rule on this tab, as it is now in the editor, would have done on the recorded inputs. Nothing is sent.</div>',
    ).appendTo(root);
    const bar = $('<div style="margin-bottom:8px"></div>').appendTo(root);
    WINDOWS.forEach(([id, label]) => {
      $('<button type="button" class="red-ui-button careflow-rehearse-window" style="margin-right:4px"></button>')
        .attr("data-window", id)
        .text(label)
        .on("click", () => rehearse(RED.workspaces.active(), id))
        .appendTo(bar);
    });
    const wordsButton = $('<button type="button" class="red-ui-button careflow-draft-from-words"><i class="fa fa-magic"></i> Draft from words</button>')
      .attr("title", "Describe a rule in a sentence: the authoring model drafts it as a new tab, rehearsed on the last 7 days")
      .on("click", draftFromWords)
      .appendTo(bar);
    // Without a language model the button cannot work here: it says so, in a family's words, before anyone types.
    const notSetUp = $('<div class="careflow-not-set-up" style="display:none;margin-bottom:8px;font-size:12px;color:#7a5b00"></div>').appendTo(root);
    /** What is not set up here (`not_set_up` of a refusal or of the readiness answer), in words for a family. */
    interface NotSetUp {
      part: string;
      message: string;
    }
    function showNotSetUp(n: NotSetUp): void {
      wordsButton.prop("disabled", true).attr("title", n.message);
      notSetUp.text(n.message).show();
    }
    $.getJSON<{ ready: boolean; not_set_up?: NotSetUp }>("careflow/rules/draft-from-words", (r) => {
      if (!r.ready && r.not_set_up) showNotSetUp(r.not_set_up);
    });
    const result = $('<div class="careflow-rehearsal"></div>').appendTo(root);

    /** "1 alert", "2 alerts": a count said right. */
    function count(n: number, one: string, many: string): string {
      return n + " " + (n === 1 ? one : many);
    }
    function when(iso: string, withDay: boolean): string {
      const d = new Date(iso);
      const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
      // The day of the month too: a 7-day window starts and ends on the same weekday.
      return withDay ? d.toLocaleDateString([], { weekday: "short", day: "numeric", month: "short" }) + " " + time : time;
    }
    /** A tick of the timeline's axis: the time within a day, the day alone over several (the labels must fit). */
    function axisLabel(iso: string, multiDay: boolean): string {
      return multiDay ? new Date(iso).toLocaleDateString([], { weekday: "short", day: "numeric" }) : when(iso, false);
    }
    /** The reason a refused request gives (`detail` of its JSON body), else its status text. */
    function refusal(x: JQueryXHR): string {
      const body = x.responseJSON;
      const detail = body && typeof body === "object" ? (body as { detail?: unknown }).detail : undefined;
      return detail ? String(detail) : x.statusText;
    }

    /** The tab as a deploy would send it: its tab node and its nodes. */
    function tabDraft(tabId: string): RedExportedNode[] {
      const ws = RED.nodes.workspace(tabId);
      const nodes = RED.nodes.createExportableNodeSet(RED.nodes.filterNodes({ z: tabId }));
      nodes.unshift({ id: tabId, type: "tab", label: ws ? ws.label : "", disabled: ws ? !!ws.disabled : false });
      return nodes;
    }

    function rehearse(tabId: string, window: string): void {
      if (!RED.nodes.workspace(tabId)) {
        RED.notify("Open a rule's tab to rehearse it.", "warning");
        return;
      }
      RED.careflow?.clearPath?.();
      result.empty();
      $('<div class="careflow-rehearsing" style="opacity:0.75"><i class="fa fa-spinner fa-spin"></i> Rehearsing…</div>').appendTo(result);
      $.ajax<Rehearsal>({
        method: "POST",
        url: "careflow/tabs/" + encodeURIComponent(tabId) + "/rehearse",
        contentType: "application/json",
        data: JSON.stringify({ window, draft: { flows: tabDraft(tabId) } }),
      })
        .done((a) => render(a, tabId))
        .fail((x) => {
          result.empty();
          $('<div class="careflow-rehearsal-refused" style="color:#c0392b"></div>')
            .text("Rehearsal refused: " + refusal(x))
            .appendTo(result);
        });
    }

    function render(a: Rehearsal, tabId: string): void {
      result.empty();
      $('<div class="careflow-rehearsal-summary" style="font-size:14px;font-weight:bold;margin:4px 0"></div>')
        .text(a.difference.summary.charAt(0).toUpperCase() + a.difference.summary.slice(1))
        .appendTo(result);
      const multiDay = Date.parse(a.to) - Date.parse(a.from) > 86400000;
      $('<div style="opacity:0.75;margin-bottom:6px"></div>')
        .text(
          (a.draft ? "The tab as it is in the editor" : "The deployed rule") +
            ", " +
            when(a.from, true) +
            " – " +
            when(a.to, true) +
            ": " +
            count(a.inputs_replayed, "input", "inputs") +
            " replayed in " +
            (a.elapsed_ms / 1000).toFixed(1) +
            " s.",
        )
        .appendTo(result);
      timeline(a, multiDay).appendTo(result);
      // Runs a person started answer no recorded input: named apart, not compared.
      const byHand = a.hand_started ?? [];
      if (byHand.length > 0)
        $('<div class="careflow-hand-started" style="color:#555;margin-top:4px"></div>')
          .text(
            (byHand.length === 1 ? "1 run" : byHand.length + " runs") +
              " started by hand (Run now, execute, rerun) at " +
              byHand.map((r) => when(r.started_at, multiDay)).join(", ") +
              ": not compared.",
          )
          .appendTo(result);
      a.warnings.forEach((w) => {
        $('<div class="careflow-rehearsal-warning" style="color:#b36b00;margin-top:4px"></div>')
          .text("⚠ " + w)
          .appendTo(result);
      });
      a.not_rehearsed.forEach((n) => {
        $('<div class="careflow-not-rehearsed" style="color:#b36b00;margin-top:4px"></div>')
          .text("Not rehearsed at " + when(n.at, multiDay) + " (" + n.service + "): " + n.reason)
          .appendTo(result);
      });
      a.recorded_answers.forEach((r) => {
        const whose = r.service === "interactive_prompt" ? "the senior's answer to the prompt" : "the " + r.service + "'s answer";
        $('<div class="careflow-recorded-answer" style="color:#555;margin-top:4px"></div>')
          .text("Answered as recorded at " + when(r.at, multiDay) + ": " + whose + " in run " + r.from_execution_id)
          .appendTo(result);
      });
      runList(
        a.rehearsed,
        "Would have run (" + count(a.rehearsed.length, "run", "runs") + ", " + count(a.difference.rehearsed_alerts, "alert", "alerts") + ")",
        "careflow-rehearsed-run",
        multiDay,
        (r, row) => {
          openRehearsed(r, row, tabId);
        },
      ).appendTo(result);
      runList(
        a.actual,
        "Actually ran (" + count(a.actual.length, "run", "runs") + ", " + count(a.difference.actual_alerts, "alert", "alerts") + ")",
        "careflow-actual-run",
        multiDay,
        (r, row) => {
          openActual(r, row);
        },
      ).appendTo(result);
    }

    /** Two lanes over the window, a dot per run: red and larger when it alerted; a new alert ringed orange, one no longer sent ringed blue. */
    function timeline(a: Rehearsal, multiDay: boolean): JQuery {
      const box = $('<div class="careflow-timeline" style="margin:8px 0 10px"></div>');
      const start = Date.parse(a.from);
      const span = Math.max(1, Date.parse(a.to) - start);
      const left = (iso: string) => (Math.min(1, Math.max(0, (Date.parse(iso) - start) / span)) * 100).toFixed(2) + "%";
      const lane = (label: string, runs: RehearsalRun[], kind: string, marked: string[], markClass: string, open: (r: RehearsalRun, row: JQuery) => void) => {
        const l = $('<div class="careflow-lane"></div>').attr("data-lane", kind).appendTo(box);
        $('<span class="careflow-lane-label"></span>').text(label).appendTo(l);
        runs.forEach((r) => {
          const dot = $('<span class="careflow-dot"></span>')
            .attr("data-execution", String(r.execution_id))
            .attr(
              "title",
              when(r.started_at, multiDay) + " · " + r.status + (r.alerted ? " · alert" : "") + (r.warnings && r.warnings.length ? " · needs a look" : ""),
            )
            .css("left", left(r.started_at))
            .appendTo(l);
          if (r.alerted) dot.addClass("careflow-alert");
          if (r.alerted && marked.includes(r.started_at)) dot.addClass(markClass);
          dot.on("click", () => open(r, $(".careflow-" + kind + "-run[data-execution=" + r.execution_id + "]")));
        });
      };
      lane("Rehearsed", a.rehearsed, "rehearsed", a.difference.new_alerts, "careflow-new", (r, row) => openRehearsed(r, row, RED.workspaces.active()));
      lane("Actual", a.actual, "actual", a.difference.missing_alerts, "careflow-missing", openActual);
      const axis = $('<div class="careflow-axis"></div>').appendTo(box);
      (multiDay ? [0, 0.5, 1] : [0, 0.25, 0.5, 0.75, 1]).forEach((f) => {
        // The first and last labels sit inside the lane, not half outside it.
        $("<span></span>")
          .css("left", f * 100 + "%")
          .css("transform", f === 0 ? "none" : f === 1 ? "translateX(-100%)" : "translateX(-50%)")
          .text(axisLabel(new Date(start + f * span).toISOString(), multiDay))
          .appendTo(axis);
      });
      $('<div style="font-size:11px;color:#777;margin:10px 0 0 70px"></div>')
        .text("● red: alert · orange ring: new alert · blue ring: alert no longer sent")
        .appendTo(box);
      return box;
    }

    function runList(runs: RehearsalRun[], title: string, cls: string, multiDay: boolean, open: (r: RehearsalRun, row: JQuery) => void): JQuery {
      const box = $("<div style='margin-top:10px'></div>");
      $('<div style="font-weight:bold;margin-bottom:4px"></div>').text(title).appendTo(box);
      if (!runs.length) $('<div style="opacity:0.7">None.</div>').appendTo(box);
      runs.forEach((r) => {
        const row = $("<div></div>").addClass(cls).attr("data-execution", String(r.execution_id)).appendTo(box);
        $("<i></i>")
          .addClass(r.alerted ? "fa fa-bell" : "fa fa-circle-o")
          .css("color", r.alerted ? "#c0392b" : "#999")
          .appendTo(row);
        $("<span></span>")
          .text(" " + when(r.started_at, multiDay) + " · " + r.status + " · " + r.steps.length + (r.steps.length === 1 ? " step" : " steps"))
          .appendTo(row);
        // As the runs sidebar marks it: a run that warned is never shown as a plain success.
        if (r.warnings && r.warnings.length)
          // The warnings themselves are the lines under the run: said once, not again in a tooltip.
          $('<span class="careflow-run-warning" style="margin-left:6px;color:#b36b00"><i class="fa fa-exclamation-triangle"></i> needs a look</span>').appendTo(
            row,
          );
        (r.warnings || []).forEach((w) => {
          $('<div class="careflow-run-warning-line" style="font-size:11px;color:#b36b00;margin-left:14px"></div>')
            .text("⚠ " + w)
            .appendTo(row);
        });
        (r.would_send || []).forEach((w) => {
          $('<div class="careflow-would-send"></div>').text(w.said).appendTo(row);
        });
        row.on("click", () => open(r, row));
      });
      return box;
    }

    function mark(row: JQuery, r: RehearsalRun, kind: string): void {
      $(".careflow-open").removeClass("careflow-open");
      row.addClass("careflow-open");
      $(".careflow-lane[data-lane=" + kind + "] .careflow-dot[data-execution=" + r.execution_id + "]").addClass("careflow-open");
    }
    function openRehearsed(r: RehearsalRun, row: JQuery, tabId: string): void {
      mark(row, r, "rehearsed");
      if (r.path) RED.careflow?.showPath?.({ ...r.path, tab_id: tabId }, true);
    }
    function openActual(r: RehearsalRun, row: JQuery): void {
      mark(row, r, "actual");
      $.getJSON<{ path?: CareflowRunPath | null }>("careflow/runs/" + r.execution_id, (d) => RED.careflow?.showPath?.(d.path, true));
    }

    /** What `careflow/rules/draft-from-words` answers. */
    interface WordsDraft {
      flows: RedExportedNode[];
      warnings: string[];
      repaired: boolean;
    }
    // A sentence → the authoring model's rule, opened as a new tab (not deployed) and rehearsed at once on the last 7 days.
    function draftFromWords(): void {
      const box = $(
        "<div><p>Say what the rule should do, as you would tell a person. It opens as a new tab, not deployed, rehearsed on the last 7 days.</p>" +
          '<textarea class="careflow-sentence" style="width:100%;height:80px" placeholder="Tell me if Mum is not up by nine on a weekday"></textarea>' +
          '<div class="careflow-words-status" style="margin-top:6px"></div></div>',
      );
      box.dialog({
        title: "Draft a rule from words",
        modal: true,
        width: 480,
        buttons: [
          {
            text: "Cancel",
            click: function () {
              $(this).dialog("close");
            },
          },
          {
            text: "Draft",
            class: "primary careflow-words-go",
            click: function () {
              const dlg = $(this);
              const status = dlg.find(".careflow-words-status");
              status.css("color", "").text("Asking the authoring model…");
              $.ajax<WordsDraft>({
                method: "POST",
                url: "careflow/rules/draft-from-words",
                contentType: "application/json",
                data: JSON.stringify({ sentence: String(dlg.find("textarea").val() ?? "") }),
              })
                .done((d) => {
                  dlg.dialog("close");
                  const tab = d.flows.find((n) => n.type === "tab");
                  if (!tab) return;
                  RED.view.importNodes(d.flows, { generateIds: false, addFlow: false, notify: false });
                  RED.workspaces.show(tab.id);
                  RED.notify('Drafted "' + String(tab.label) + '": not deployed. Rehearsing it on the last 7 days.', "success");
                  d.warnings.forEach((w) => RED.notify(w, "warning"));
                  RED.sidebar.show("careflow-rehearse");
                  rehearse(tab.id, "7d");
                })
                .fail((x) => {
                  // 409 without a language model: the family's words, never the setting's path.
                  const body = x.responseJSON as { not_set_up?: NotSetUp } | undefined;
                  if (body && body.not_set_up) {
                    showNotSetUp(body.not_set_up);
                    status.css("color", "#7a5b00").text(body.not_set_up.message);
                  } else status.css("color", "#c0392b").text(refusal(x));
                });
            },
          },
        ],
        close: function () {
          $(this).dialog("destroy").remove();
        },
      });
    }

    RED.sidebar.addTab({
      id: "careflow-rehearse",
      label: "Rehearse",
      name: "Rehearse",
      iconClass: "fa fa-history",
      content: root,
      enableOnEdit: true,
      onchange: () => undefined,
    });
    // Its button goes right after the Care runs tab's, in the tab bar rather than its overflow.
    function placeButton(): void {
      const button = $("#red-ui-tab-careflow-rehearse-link-button");
      const runs = $("#red-ui-tab-careflow-runs-link-button");
      if (!button.length || !runs.length || button.prev().is(runs)) return;
      button.insertAfter(runs).show();
      $(window).trigger("resize");
    }
    RED.events.on("flows:loaded", placeButton);
    setTimeout(placeButton, 800);
    RED.careflow = RED.careflow || {};
    RED.careflow.rehearse = (tabId: string, window: string) => {
      RED.sidebar.show("careflow-rehearse");
      rehearse(tabId, window);
    };
  },
});
