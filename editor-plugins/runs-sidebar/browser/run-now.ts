/**
 * "Run this rule now" (the Care runs sidebar's "Run now" button, or a rule trigger node's
 * button): a dialog asking for what the rule's trigger would carry, as a form a caregiver
 * reads (the sensor, the room, the person, how long), its pickers filled from the household
 * (`careflow/household`, as the node forms' pickers are). The sample as JSON is behind a
 * "Show the JSON" toggle for what the form does not cover (a webhook's body). The deployed
 * rule runs, by hand: the run is labelled "started by hand by <who>".
 */
RED.plugins.registerPlugin("careflow-run-now", {
  type: "careflow-editor",
  onadd: () => {
    /** A picker's option as `careflow/household` lists it. */
    interface HouseholdOption {
      value: string;
      label: string;
    }
    interface Household {
      sensors?: HouseholdOption[];
      rooms?: HouseholdOption[];
      persons?: HouseholdOption[];
    }
    /** The fields of a trigger's config the form reads. */
    interface TriggerView {
      primary_sensor_id?: string | null;
      trigger_type?: string;
      occupancy_config?: { min_minutes?: number } | null;
    }
    /** What `careflow/tabs/{tab}/run` takes (runs.service.ts `sampleTriggerSchema`). */
    interface Sample {
      sensor_id: string | null;
      room_name: string | null;
      webhook_payload?: Record<string, unknown> | null;
      occupancy_duration_minutes?: number | null;
    }

    function triggerOf(tabId: string): TriggerView {
      let found: RedNode | null = null;
      RED.nodes.eachNode((n) => {
        if (n.z === tabId && n.type === "care-trigger") found = n;
      });
      const node = found as RedNode | null;
      return (node && node.config) || {};
    }
    /** What the rule's own kind of trigger would carry. */
    function sampleFor(t: TriggerView): Sample {
      const sample: Sample = { sensor_id: t.primary_sensor_id || null, room_name: null };
      if (t.trigger_type === "webhook") sample.webhook_payload = { example: "value" };
      if (t.trigger_type === "dementia_signal") sample.webhook_payload = { person_id: null, kind: "pacing", severity: "warning" };
      if (t.trigger_type === "system_health")
        sample.webhook_payload = {
          part_id: "device:kitchen_cam",
          part_kind: "camera",
          change: "went_silent",
          state: "silent",
          sentence: "The kitchen camera has sent nothing since 14:02.",
        };
      if (t.trigger_type === "occupancy_duration") sample.occupancy_duration_minutes = (t.occupancy_config && t.occupancy_config.min_minutes) || 30;
      return sample;
    }
    /** Plain words for how the rule fires, for the dialog's first line. */
    const KIND_WORDS: Record<string, string> = {
      sensor_event: "when a sensor reports",
      cron: "on its schedule",
      manual: "only by hand",
      webhook: "when a webhook is called",
      occupancy_duration: "when someone stays in a room long enough",
      chat_app: "on a chat command",
      cts_window: "on what the tracking cameras see",
      dementia_signal: "on a sign of confusion for a person",
      system_health: "when one of careflow's own parts goes quiet or comes back",
    };
    /** The reason a refused request gives (`detail` of its JSON body), else its status text. */
    function refusal(x: JQueryXHR): string {
      const body = x.responseJSON;
      const detail = body && typeof body === "object" ? (body as { detail?: unknown }).detail : undefined;
      return detail ? String(detail) : x.statusText;
    }

    /** A labelled row with a picker ("(none)" first) of the household's options. */
    function picker(box: JQuery, name: string, label: string, options: HouseholdOption[] | undefined, value: string | null): JQuery {
      const row = $('<div class="form-row" style="margin-bottom:8px"></div>').appendTo(box);
      // The label names its picker (one Run now dialog is open at a time, so the id is unique).
      $('<label style="display:inline-block;width:110px"></label>')
        .attr("for", "careflow-run-now-" + name)
        .text(label)
        .appendTo(row);
      const select = $('<select style="width:260px"></select>')
        .attr("id", "careflow-run-now-" + name)
        .attr("name", name)
        .addClass("careflow-run-now-" + name)
        .appendTo(row);
      $("<option></option>").val("").text("(none)").appendTo(select);
      (options || []).forEach((o) => $("<option></option>").val(o.value).text(o.label).appendTo(select));
      // A value the household no longer has stays choosable, so the form never hides what it sends.
      if (value && !(options || []).some((o) => o.value === value))
        $("<option></option>")
          .val(value)
          .text(value + " (not in the household)")
          .appendTo(select);
      select.val(value || "");
      return select;
    }

    function runNow(tabId: string): void {
      if (RED.nodes.dirty()) {
        RED.notify("Deploy your changes first: Run now runs the deployed rule.", "warning");
        return;
      }
      const trigger = triggerOf(tabId);
      const kind = trigger.trigger_type || "manual";
      const start = sampleFor(trigger);
      const box = $('<div class="careflow-run-now-dialog"></div>');
      $("<p></p>")
        .text("This rule runs " + (KIND_WORDS[kind] || "on its trigger") + ". Run it now, as if its trigger came with:")
        .appendTo(box);
      const form = $('<div class="careflow-run-now-form"></div>').appendTo(box);
      const raw = $('<div class="careflow-run-now-raw" style="display:none"></div>').appendTo(box);
      const toggle = $('<a href="#" class="careflow-run-now-toggle" style="display:block;margin:6px 0">Show the JSON</a>').insertAfter(form);
      $('<p style="font-size:12px;opacity:0.75;margin:0 0 4px"></p>').text("What the rule's trigger would carry, as JSON:").appendTo(raw);
      const text = $('<textarea class="careflow-sample" style="width:100%;height:140px;font-family:monospace"></textarea>').appendTo(raw);
      text.val(JSON.stringify(start, null, 2));

      // The form's fields, once the household's names are in.
      let read: () => Sample = () => start;
      $.getJSON<Household | null>("careflow/household")
        .done((h) => {
          const household: Household = h || {};
          const sensor = picker(form, "sensor", "Sensor", household.sensors, start.sensor_id);
          const room = picker(form, "room", "Room", household.rooms, start.room_name);
          let person: JQuery | null = null;
          let minutes: JQuery | null = null;
          if (kind === "dementia_signal") {
            const payload = start.webhook_payload || {};
            person = picker(form, "person", "Person", household.persons, typeof payload.person_id === "string" ? payload.person_id : null);
          }
          if (kind === "occupancy_duration") {
            const row = $('<div class="form-row" style="margin-bottom:8px"></div>').appendTo(form);
            $('<label style="display:inline-block;width:110px">Minutes there</label>').appendTo(row);
            minutes = $('<input type="number" min="0" step="1" style="width:100px" class="careflow-run-now-minutes">').appendTo(row);
            minutes.val(start.occupancy_duration_minutes ?? 30);
          }
          if (kind === "webhook")
            $('<p style="font-size:12px;opacity:0.75"></p>').text("A webhook also carries a body: write it under \u201cShow the JSON\u201d.").appendTo(form);
          read = () => {
            const sample: Sample = { ...start, sensor_id: String(sensor.val() || "") || null, room_name: String(room.val() || "") || null };
            if (person) sample.webhook_payload = { ...(start.webhook_payload || {}), person_id: String(person.val() || "") || null };
            if (minutes) sample.occupancy_duration_minutes = Number(minutes.val()) || 0;
            return sample;
          };
          form.find("select, input").on("change", () => text.val(JSON.stringify(read(), null, 2)));
        })
        .fail(() => $('<p style="color:#b36b00"></p>').text("The household's sensors, rooms and people could not be read: use the JSON below.").appendTo(form));

      toggle.on("click", (e) => {
        e.preventDefault();
        const show = raw.is(":hidden");
        if (show) text.val(JSON.stringify(read(), null, 2));
        raw.toggle(show);
        form.toggle(!show);
        toggle.text(show ? "Back to the form" : "Show the JSON");
      });

      box.dialog({
        title: "Run this rule now",
        modal: true,
        width: 460,
        buttons: [
          {
            text: "Cancel",
            click: function () {
              $(this).dialog("close");
            },
          },
          {
            text: "Run",
            class: "primary careflow-run-now-go",
            click: function () {
              const dlg = $(this);
              let sample: unknown;
              // The JSON when it is shown (a person may have written what the form cannot), else the form.
              if (raw.is(":visible")) {
                try {
                  sample = JSON.parse(String(text.val()));
                } catch (err) {
                  RED.notify("The JSON does not read: " + (err as Error).message, "error");
                  return;
                }
              } else sample = read();
              $.ajax<{ execution_id: number }>({
                method: "POST",
                url: "careflow/tabs/" + encodeURIComponent(tabId) + "/run",
                contentType: "application/json",
                data: JSON.stringify(sample),
              })
                .done((r) => {
                  dlg.dialog("close");
                  RED.notify("Run #" + r.execution_id + " started", "success");
                  RED.sidebar.show("careflow-runs");
                  if (RED.careflow && RED.careflow.openRun) RED.careflow.openRun(r.execution_id);
                })
                .fail((x) => RED.notify("Run now refused: " + refusal(x), "error"));
            },
          },
        ],
        close: function () {
          $(this).dialog("destroy").remove();
        },
      });
    }
    RED.careflow = RED.careflow || {};
    RED.careflow.runNow = runNow;
  },
});
