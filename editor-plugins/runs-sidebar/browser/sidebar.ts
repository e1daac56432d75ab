/**
 * Node-RED plugin (editor side): the "Care runs" sidebar tab (pinned, so it stays in the tab
 * bar at any width). It lists live and recent runs, updated as events arrive; a run with a
 * warning (a notification that reached nobody, say) is marked. Opening a run shows its
 * steps in sentences ("Sent to the family chat at 07:00: …", each warning said once), and
 * behind each step's "details" its label, time, port taken, what it read and wrote, its own
 * trace (the message it rendered, a model's prompt, images and answer), the channels'
 * receipts and its error; thumbnails of the camera frames that started the run and of the
 * images each model step was given (a click opens the frame); and lights up its path on the canvas: nodes that ran with their
 * status, links taken, skipped nodes greyed out, the node where it waits or failed shown.
 * "Run now" (the sidebar's button, or a rule trigger node's button) tries the tab's rule
 * with a sample trigger (run-now.ts). While the page is open it tells the server it is watching, every
 * 20 s, so the server forwards run events only then.
 */
RED.plugins.registerPlugin("careflow-runs-sidebar", {
  type: "careflow-editor",
  onadd: () => {
    // What the sidebar's endpoints answer (editor-plugins/runs-sidebar/plugin.ts).
    /** A row of `careflow/runs`. */
    interface RunSummary {
      execution_id: number;
      status: string;
      rule_name: string;
      triggered_at: string | null;
      warnings?: string[];
      /** A run a person started (Run now, execute, rerun), and who when known. */
      started_by_hand?: boolean;
      started_by?: string;
    }
    interface StepTrace {
      message?: string;
      model?: string;
      prompt?: string;
      images?: string[];
      answer?: string;
    }
    /** A camera frame with its signed URL (runtime/household/media/frame-views.ts). */
    interface FrameView {
      object_name: string;
      url: string | null;
      sensor_id: string | null;
      room_name: string | null;
      captured_at: string | null;
      labels: string[];
      note?: string;
    }
    interface Receipt {
      channel: string;
      delivered: boolean;
      detail?: string | null;
    }
    interface TimelineStep {
      step_id: number;
      node_id: string;
      label: string;
      step_type: string;
      /** The step in a sentence (runtime/care/core/pipeline/runs/step-sentences.ts). */
      sentence: string;
      status: string;
      elapsed_seconds: number | null;
      output_port?: string | null;
      error?: string | null;
      warning?: string | null;
      receipts?: Receipt[];
      inputs?: Record<string, unknown>;
      outputs?: Record<string, unknown>;
      trace?: StepTrace;
      images?: FrameView[];
      /** A step a restart cut short: what it is known to have done. */
      done?: string[];
    }
    interface PathNode {
      node_id: string;
      state: string;
      text?: string;
    }
    interface PathLink {
      source: string;
      port: number;
    }
    interface RunPath {
      tab_id: string;
      focus?: string | null;
      nodes: PathNode[];
      links: PathLink[];
    }
    /** `careflow/runs/{id}`. */
    interface RunDetail {
      id: number;
      status: string;
      rule_name: string;
      trigger_summary: string;
      frames?: FrameView[];
      started_at: string | null;
      resume_at?: string | null;
      timeline: TimelineStep[];
      errors?: string[];
      warnings?: string[];
      path?: RunPath | null;
    }
    /** The data d3 binds to a link of the canvas (Node-RED's view). */
    interface LinkDatum {
      source?: { id: string };
      sourcePort?: number;
    }

    $("<style>")
      .text(
        ".careflow-skipped { opacity: 0.3; }" +
          ".careflow-link-taken .red-ui-flow-link-line { stroke: #3a9b3a !important; stroke-width: 4px !important; }" +
          ".careflow-step-detail pre { max-height: 160px; overflow: auto; background: #f7f7f7; padding: 4px; margin: 2px 0 6px; white-space: pre-wrap; word-break: break-word; font-size: 11px; }" +
          ".careflow-step-detail h4 { margin: 6px 0 2px; font-size: 12px; }" +
          ".careflow-frames { display: flex; flex-wrap: wrap; gap: 4px; margin: 4px 0; }" +
          ".careflow-frame { display: inline-block; width: 64px; height: 48px; border: 1px solid #ccc; border-radius: 2px; overflow: hidden; background: #eee; }" +
          ".careflow-frame img { width: 100%; height: 100%; object-fit: cover; display: block; }" +
          ".careflow-frame-gone { font-size: 10px; color: #777; text-align: center; line-height: 12px; padding-top: 12px; box-sizing: border-box; }",
      )
      .appendTo("head");
    const root = $('<div class="careflow-runs-panel" style="padding:8px;overflow-y:auto;height:100%;font-size:13px"></div>');
    const bar = $('<div style="margin-bottom:8px"></div>').appendTo(root);
    $('<button type="button" class="red-ui-button careflow-run-now"><i class="fa fa-play"></i> Run now</button>')
      .attr("title", "Run the rule of this tab with a sample trigger")
      .on("click", () => RED.careflow && RED.careflow.runNow && RED.careflow.runNow(RED.workspaces.active()))
      .appendTo(bar);
    const list = $("<div></div>").appendTo(root);
    const detail = $('<div style="display:none"></div>').appendTo(root);
    /** The run the detail shows. */
    let openId: number | undefined;
    /** The open run's status when last shown. */
    let openStatus: string | undefined;
    /** The steps whose detail is open in the run shown, kept when the run's update redraws it. */
    const expanded = new Set<number>();
    const colors: Record<string, string> = {
      running: "#2e7bcf",
      waiting: "#d9a300",
      completed: "#3a9b3a",
      failed: "#c0392b",
      cancelled: "#777",
      skipped: "#aaa",
      success: "#3a9b3a",
      pending: "#aaa",
      interrupted: "#a04000",
    };
    function badge(status: string): JQuery {
      return $('<span style="display:inline-block;min-width:70px;padding:1px 6px;border-radius:3px;color:#fff;font-size:11px;text-align:center"></span>')
        .css("background", colors[status] || "#777")
        .text(status);
    }
    function when(iso: string | null | undefined): string {
      return iso ? new Date(iso).toLocaleTimeString() : "";
    }
    function json(v: unknown): string {
      return JSON.stringify(v, null, 2);
    }

    function renderList(runs: RunSummary[]): void {
      list.empty();
      $('<div style="font-weight:bold;margin-bottom:6px">Live and recent runs</div>').appendTo(list);
      if (!runs.length) $('<div style="opacity:0.7">No runs yet. Run a rule with its trigger, or with "Run now".</div>').appendTo(list);
      runs.forEach((r) => {
        const row = $('<div class="careflow-run" style="padding:4px 2px;border-bottom:1px solid #eee;cursor:pointer"></div>').attr(
          "data-execution",
          String(r.execution_id),
        );
        badge(r.status).appendTo(row);
        $("<span></span>")
          .text(" #" + r.execution_id + " " + r.rule_name + " · " + when(r.triggered_at))
          .appendTo(row);
        if (r.started_by_hand)
          $('<span class="careflow-run-by-hand" style="margin-left:6px;opacity:0.75"></span>')
            .text("started by hand" + (r.started_by ? " by " + r.started_by : ""))
            .appendTo(row);
        if (r.warnings && r.warnings.length)
          $('<span class="careflow-run-warning" style="margin-left:6px;color:#b36b00" title=""><i class="fa fa-exclamation-triangle"></i> needs a look</span>')
            .attr("title", r.warnings.join("\n"))
            .appendTo(row);
        row.on("click", () => openRun(r.execution_id, true));
        row.appendTo(list);
      });
    }
    function refresh(): void {
      if (detail.is(":hidden")) $.getJSON<RunSummary[]>("careflow/runs", renderList);
      else if (openId !== undefined) openRun(openId, false);
    }

    // Thumbnails: the frame itself, scaled by CSS; a click opens it full size. A signed URL is
    // new on every answer (its expiry moves), so one received less than a minute ago is
    // reused and a refresh does not fetch every frame again.
    const urls: Record<string, { url: string; at: number }> = {};
    function frameUrl(objectName: string, url: string): string {
      const kept = urls[objectName];
      if (kept && Date.now() - kept.at < 60000) return kept.url;
      urls[objectName] = { url, at: Date.now() };
      return url;
    }
    function frameTitle(f: FrameView): string {
      const where = [f.sensor_id, f.room_name].filter(Boolean).join(" in ");
      const labels = f.labels.length ? " · " + f.labels.join(", ") : "";
      return (where ? where + " · " : "") + (f.captured_at ? new Date(f.captured_at).toLocaleString() : "") + labels + "\n" + f.object_name;
    }
    function thumbnails(frames: FrameView[]): JQuery {
      const box = $('<div class="careflow-frames"></div>');
      frames.forEach((f) => {
        if (f.url === null) {
          $('<span class="careflow-frame careflow-frame-gone">no longer kept</span>')
            .attr("title", (f.note || "no longer kept") + "\n" + f.object_name)
            .attr("data-frame", f.object_name)
            .appendTo(box);
          return;
        }
        const url = frameUrl(f.object_name, f.url);
        const link = $('<a class="careflow-frame" target="_blank" rel="noopener"></a>')
          .attr("href", url)
          .attr("title", frameTitle(f))
          .attr("data-frame", f.object_name);
        $('<img alt="" loading="lazy">').attr("src", url).appendTo(link);
        link.appendTo(box);
      });
      return box;
    }

    function section(box: JQuery, title: string, body: string): void {
      $("<h4></h4>").text(title).appendTo(box);
      $("<pre></pre>").text(body).appendTo(box);
    }
    function stepDetail(s: TimelineStep): JQuery {
      const box = $('<div class="careflow-step-detail" style="padding:0 4px 6px 8px"></div>');
      // The record as the engine keeps it: node label, type, time, port taken.
      $('<div class="careflow-step-record" style="font-family:monospace;font-size:11px;opacity:0.8"></div>')
        .text(
          s.label +
            " (" +
            s.step_type +
            ")" +
            (s.elapsed_seconds === null ? "" : " · " + (s.elapsed_seconds * 1000).toFixed(1) + " ms") +
            (s.output_port ? " · → " + s.output_port : ""),
        )
        .appendTo(box);
      if (s.error) section(box, "Error", s.error);
      if (s.warning) section(box, "Warning", s.warning);
      if (s.receipts && s.receipts.length) section(box, "Receipts", json(s.receipts));
      if (Object.keys(s.inputs || {}).length) section(box, "Read", json(s.inputs));
      if (Object.keys(s.outputs || {}).length) section(box, "Wrote", json(s.outputs));
      const t = s.trace || {};
      if (t.message) section(box, "Message", t.message);
      if (t.model) section(box, "Model", t.model);
      if (t.prompt) section(box, "Prompt", t.prompt);
      if (t.images && t.images.length) section(box, "Images sent", t.images.join("\n"));
      if (t.answer) section(box, "Answer", t.answer);
      if (box.children().length === 1) $('<div style="opacity:0.7">Nothing else recorded for this step.</div>').appendTo(box);
      return box;
    }
    function openRun(id: number, reveal: boolean): void {
      $.getJSON<RunDetail>("careflow/runs/" + id, (d) => {
        list.hide();
        if (openId !== id) expanded.clear();
        openId = id;
        openStatus = d.status;
        detail.empty().show();
        $('<a href="#" style="display:block;margin-bottom:6px">&larr; all runs</a>')
          .on("click", (e) => {
            e.preventDefault();
            clearPath();
            expanded.clear();
            detail.hide();
            list.show();
            refresh();
          })
          .appendTo(detail);
        const head = $('<div style="margin-bottom:8px"></div>').appendTo(detail);
        badge(d.status).appendTo(head);
        $("<b></b>")
          .text(" #" + d.id + " " + d.rule_name)
          .appendTo(head);
        $('<div style="opacity:0.75"></div>')
          .text(d.trigger_summary + " · started " + when(d.started_at) + (d.resume_at ? " · resumes " + when(d.resume_at) : ""))
          .appendTo(detail);
        if (d.frames && d.frames.length) {
          const started = $('<div class="careflow-trigger-frames" style="margin-top:6px"></div>').appendTo(detail);
          $('<div style="font-size:12px;opacity:0.75"></div>')
            .text("Frames that started it (" + d.frames.length + ")")
            .appendTo(started);
          thumbnails(d.frames).appendTo(started);
        }
        // Each step in a sentence first; its label, time, port, receipts and data behind "details".
        const table = $('<table style="width:100%;margin-top:8px;border-collapse:collapse"></table>').appendTo(detail);
        d.timeline.forEach((s) => {
          const tr = $('<tr class="careflow-step" style="border-bottom:1px solid #eee;cursor:pointer"></tr>')
            .attr("data-step", String(s.step_id))
            .appendTo(table);
          $('<td style="padding:3px;vertical-align:top"></td>').append(badge(s.status)).appendTo(tr);
          const said = $('<td style="padding:3px"></td>').appendTo(tr);
          $('<span class="careflow-step-sentence"></span>')
            .text((s.warning ? "⚠ " : "") + s.sentence)
            .css("color", s.status === "failed" ? "#c0392b" : s.warning ? "#b36b00" : "")
            .appendTo(said);
          const toggle = $('<a href="#" class="careflow-step-toggle" style="margin-left:6px;font-size:11px;white-space:nowrap">details</a>').appendTo(said);
          if (s.images && s.images.length)
            $('<tr class="careflow-step-images"><td></td><td style="padding:0 3px 4px"></td></tr>')
              .appendTo(table)
              .find("td:last")
              .append($('<div style="font-size:12px;opacity:0.75"></div>').text("Images sent (" + s.images.length + ")"))
              .append(thumbnails(s.images));
          // A step a restart cut short: what it had done, so a person checks rather than assumes.
          (s.done || []).forEach((line) => {
            $('<tr class="careflow-step-done"><td></td><td style="color:#a04000;padding:0 3px 2px;font-size:12px"></td></tr>')
              .appendTo(table)
              .find("td:last")
              .text("• " + line);
          });
          const more = $('<tr class="careflow-step-more" style="display:none"><td colspan="2"></td></tr>').appendTo(table);
          more.find("td").append(stepDetail(s));
          if (expanded.has(s.step_id)) more.show();
          toggle.on("click", (e) => {
            e.preventDefault();
            e.stopPropagation();
            more.toggle();
            if (more.is(":visible")) expanded.add(s.step_id);
            else expanded.delete(s.step_id);
          });
          tr.on("click", () => {
            if (RED.nodes.node(s.node_id)) RED.view.reveal(s.node_id);
          });
        });
        // A run's errors and warnings are its steps' (said in their sentences): only others are listed.
        const failedSteps = d.timeline.filter((s) => s.status === "failed").map((s) => "step '" + s.label + "' failed: " + s.error);
        (d.errors || [])
          .filter((e) => failedSteps.indexOf(e) < 0)
          .forEach((e) => {
            $('<div class="careflow-run-error" style="color:#c0392b;margin-top:6px"></div>').text(e).appendTo(detail);
          });
        showPath(d.path, reveal);
      });
    }

    // The run's path on the canvas. Statuses set here are the editor's own; they are put back
    // as they were when the run is closed.
    const STATUS: Record<string, { fill: string; shape: string }> = {
      fired: { fill: "blue", shape: "dot" },
      passed: { fill: "green", shape: "ring" },
      success: { fill: "green", shape: "dot" },
      failed: { fill: "red", shape: "dot" },
      waiting: { fill: "yellow", shape: "ring" },
      skipped: { fill: "grey", shape: "ring" },
      pending: { fill: "grey", shape: "ring" },
      interrupted: { fill: "red", shape: "ring" },
      running: { fill: "blue", shape: "ring" },
    };
    let shown: { path: RunPath; saved: Record<string, RedNodeStatus | undefined> } | null = null;
    function showPath(path: RunPath | null | undefined, reveal: boolean): void {
      clearPath();
      if (!path) return;
      const current = { path, saved: {} as Record<string, RedNodeStatus | undefined> };
      shown = current;
      path.nodes.forEach((p) => {
        const n = RED.nodes.node(p.node_id);
        if (!n) return;
        current.saved[p.node_id] = n.status;
        const s = STATUS[p.state] || STATUS.pending;
        n.status = { fill: s.fill, shape: s.shape, text: p.text };
        n.dirty = true;
        n.dirtyStatus = true;
      });
      if (reveal && RED.workspaces.contains(path.tab_id)) {
        RED.workspaces.show(path.tab_id);
        if (path.focus && RED.nodes.node(path.focus)) RED.view.reveal(path.focus);
      }
      RED.view.redraw(true);
      paint();
    }
    function clearPath(): void {
      if (!shown) return;
      const saved = shown.saved;
      Object.keys(saved).forEach((id) => {
        const n = RED.nodes.node(id);
        if (!n) return;
        n.status = saved[id];
        n.dirty = true;
        n.dirtyStatus = true;
      });
      shown = null;
      $(".careflow-skipped").removeClass("careflow-skipped");
      $(".careflow-link-taken").removeClass("careflow-link-taken");
      RED.view.redraw(true);
    }
    // Classes on the canvas's SVG: applied again whenever the view redraws a tab.
    function paint(): void {
      if (!shown) return;
      const skipped: Record<string, boolean> = {};
      const taken: Record<string, boolean> = {};
      shown.path.nodes.forEach((p) => {
        if (p.state === "skipped") skipped[p.node_id] = true;
      });
      shown.path.links.forEach((l) => {
        taken[l.source + ":" + l.port] = true;
      });
      $(".red-ui-flow-node-group").each<Element>(function () {
        if (skipped[this.id]) this.classList.add("careflow-skipped");
      });
      $(".red-ui-flow-link").each<Element & { __data__?: LinkDatum }>(function () {
        const l = this.__data__;
        if (l && l.source && taken[l.source.id + ":" + (l.sourcePort || 0)]) this.classList.add("careflow-link-taken");
      });
    }
    RED.events.on("workspace:change", () => {
      setTimeout(paint, 50);
    });

    RED.careflow = RED.careflow || {};
    // "Run this rule now" (run-now.ts) opens the run it started here.
    RED.careflow.openRun = (id: number) => openRun(id, false);
    // The rehearsal's runs (editor-plugins/rehearse) light up the canvas the same way.
    RED.careflow.showPath = showPath;
    RED.careflow.clearPath = clearPath;

    RED.sidebar.addTab({
      id: "careflow-runs",
      label: "Care runs",
      name: "Care runs",
      iconClass: "fa fa-heartbeat",
      content: root,
      enableOnEdit: true,
      onchange: refresh,
    });
    // Its button goes right after "info" once the core tabs are in: the tab bar hides buttons
    // from its end when narrow, and would otherwise put this one last, in the overflow.
    function placeButton(): void {
      const button = $("#red-ui-tab-careflow-runs-link-button");
      const info = $("#red-ui-tab-info-link-button");
      if (!button.length || !info.length || button.prev().is(info)) return;
      button.insertAfter(info).show();
      $(window).trigger("resize");
    }
    RED.events.on("flows:loaded", placeButton);
    setTimeout(placeButton, 500);
    let pending: ReturnType<typeof setTimeout> | null = null;
    RED.comms.subscribe("careflow/pipeline", () => {
      if (pending) return;
      pending = setTimeout(() => {
        pending = null;
        refresh();
      }, 250);
    });
    // The live link (the spec's client live-feed connection). The server forwards run events
    // only while an editor says it is watching (60 s after the last): Connecting until the first
    // watch is taken, Connected while they are (one every 20 s), Disconnected when one fails,
    // the list frozen as it was and the next try after 3 s, doubling up to 48 s.
    const link = $('<div class="careflow-live-link" style="font-size:12px;margin-bottom:6px"></div>').prependTo(root);
    let retryMs = 3000;
    let timer: ReturnType<typeof setTimeout> | null = null;
    function showLink(state: "connecting" | "connected" | "disconnected", nextTryMs = 0): void {
      root.attr("data-live", state);
      link.empty().css("color", state === "disconnected" ? "#b36b00" : "");
      if (state === "connecting") $('<i class="fa fa-spinner fa-spin"></i>').appendTo(link);
      const words = {
        connecting: " Connecting to careflow…",
        connected: "● Connected: runs show as they happen",
        disconnected: "Disconnected: showing the runs as they were; trying again in " + Math.round(nextTryMs / 1000) + " s",
      };
      $("<span></span>").text(words[state]).appendTo(link);
      link.attr("data-next-try-ms", String(nextTryMs));
    }
    function watch(): void {
      if (timer) clearTimeout(timer);
      timer = null;
      $.ajax({ method: "POST", url: "careflow/runs/watch" })
        .done(() => {
          const was = root.attr("data-live");
          retryMs = 3000;
          showLink("connected");
          // Run events come over the editor's comms socket, which may drop one while it
          // reconnects: each renewal also refreshes what could have changed unseen (the list,
          // or a run still going), so nothing stays "running" for longer than a renewal.
          const mayBeStale = detail.is(":hidden") || openStatus === "running" || openStatus === "waiting";
          if (was !== "connected" || mayBeStale) refresh();
          timer = setTimeout(watch, 20000);
        })
        .fail(() => {
          showLink("disconnected", retryMs);
          timer = setTimeout(watch, retryMs);
          retryMs = Math.min(retryMs * 2, 48000);
        });
    }
    RED.careflow.checkLive = watch;
    showLink("connecting");
    watch();
    refresh();
  },
});
