/**
 * Browser code shared by every care node's edit dialog (`window.careflowForm`): builds the
 * form from the type's JSON Schema (household pickers for sensor, room, person and tracking
 * camera fields, checkboxes for a list of choices or of household names, a nested object's
 * fields behind a checkbox, a cron field with its plain-words preview and next fire
 * times, a notification's channels as "the level's default channels" or a chosen list, with
 * who would see the message), reads it back into `node.config`, changing only the fields the
 * caregiver touched (an untouched field keeps its value, or stays left out, so opening a node
 * and pressing Done changes nothing), and checks a config in the editor: its shape here,
 * and the whole rule through the deploy's own validator on the server
 * (editor-plugins/form-checks) as the caregiver types, with each problem shown under its field.
 * The build embeds the compiled script in the generated `careflow.html`.
 */
window.careflowForm = (() => {
  type Field = CareflowSchemaField;
  type Kind = "ref" | "refs" | "knowledge" | "enum" | "boolean" | "number" | "string" | "choices" | "list" | "object" | "json";
  /** A picker's option as `careflow/household` lists it. */
  interface HouseholdOption {
    value: string;
    label: string;
  }
  /** `careflow/household`: options per picker (`sensors`, `rooms`, `persons`, `cts_cameras`). */
  type Household = Record<string, HouseholdOption[] | undefined>;
  /** `careflow/cron-preview`. */
  interface CronPreview {
    description: string;
    time_zone: string;
    next: Array<{ local: string }>;
  }

  /** What a dialog opened with, and the fields (by form path) the caregiver changed since. */
  interface FormState {
    original: Record<string, unknown>;
    touched: Set<string>;
  }
  const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
  const rootOf = (type: string): JQuery => $("#careflow-form-" + type.replace(/[^a-z0-9_-]/gi, "_"));
  // A change jQuery triggered (a picker filled by the code) is not the caregiver's.
  const byCode = (e: Event): boolean => !!(e as Event & { isTrigger?: unknown }).isTrigger;

  // A nullable field comes as anyOf [X, null] or as type [X, "null"]: its variant is X.
  function variant(p: Field): Field {
    let v: Field = p.anyOf ? p.anyOf.filter((x) => x.type !== "null")[0] || {} : p;
    if (Array.isArray(v.type)) v = $.extend({}, v, { type: v.type.filter((t) => t !== "null")[0] });
    return v;
  }
  function nullable(p: Field): boolean {
    return !!p.anyOf || (Array.isArray(p.type) && p.type.indexOf("null") >= 0);
  }
  function kindOf(p: Field): Kind {
    const v = variant(p);
    if (v.ref) return "ref";
    if (v.knowledge) return "knowledge";
    if (v.enum) return "enum";
    if (v.type === "boolean") return "boolean";
    if (v.type === "integer" || v.type === "number") return "number";
    if (v.type === "string") return "string";
    if (v.type === "array" && v.items && v.items.enum) return "choices";
    if (v.type === "array" && v.items && variant(v.items).ref) return "refs";
    if (v.type === "array" && v.items && (v.items.type === "string" || v.items.type === "number" || v.items.type === "integer")) return "list";
    if (v.type === "object" && v.properties) return "object";
    return "json";
  }
  function id(type: string, key: string): string {
    return "careflow-" + type.replace(/[^a-z0-9_-]/gi, "_") + "-" + key;
  }
  /** A value as a text field shows it: nothing for none. */
  function shown(value: unknown): string | number {
    return value === undefined || value === null ? "" : (value as string | number);
  }
  // The household's names for the pickers: asked again each time a dialog opens.
  function loadHousehold(): JQueryXHR<Household | null> {
    return $.getJSON<Household | null>("careflow/household");
  }
  function fillPicker(household: JQueryXHR<Household | null>, select: JQuery, ref: string, value: unknown, optional: boolean): void {
    select.empty();
    if (optional || value === undefined || value === null || value === "")
      $("<option></option>")
        .val("")
        .text(optional ? "(none)" : "choose…")
        .appendTo(select);
    household.done((h) => {
      const options = (h && h[ref + "s"]) || [];
      options.forEach((o) => {
        $("<option></option>").val(o.value).text(o.label).appendTo(select);
      });
      const known = options.some((o) => o.value === value);
      if (value && !known)
        $("<option></option>")
          .val(String(value))
          .text(value + " (not in the household)")
          .appendTo(select);
      select.val(shown(value));
    });
  }
  /**
   * Approved cards or quizzes (`careflow/knowledge-choices`, which reads the repository's
   * `?status=approved` lists). Without the list the id the node has stays chosen.
   */
  function fillKnowledge(select: JQuery, kind: string, value: unknown): void {
    const has = value !== undefined && value !== null && value !== "";
    const fill = (options: HouseholdOption[], unknownLabel: string): void => {
      select.empty();
      $("<option></option>").val("").text("choose…").appendTo(select);
      options.forEach((o) => {
        $("<option></option>").val(o.value).text(o.label).appendTo(select);
      });
      if (has && !options.some((o) => o.value === String(value))) $("<option></option>").val(String(value)).text(unknownLabel).appendTo(select);
      select.val(shown(value));
    };
    // The node's own id is there at once, so the first check reads it.
    fill([], `#${String(value)}`);
    $.getJSON<HouseholdOption[]>("careflow/knowledge-choices", { kind })
      .done((options) => {
        fill(options || [], `#${String(value)} (not approved)`);
        select.trigger("change");
      })
      .fail(() => undefined);
  }
  function cronPreview(input: JQuery): JQuery {
    const box = $('<div class="careflow-cron-preview" style="margin:2px 0 0 165px;font-size:0.9em"></div>');
    let timer: ReturnType<typeof setTimeout> | undefined;
    function show(): void {
      const text = String(input.val() || "").trim();
      if (!text) {
        box.text("");
        return;
      }
      $.getJSON<CronPreview>("careflow/cron-preview", { expression: text })
        .done((p) => {
          box.empty().css("color", "");
          $("<div></div>")
            .text(p.description + " (" + p.time_zone + ")")
            .appendTo(box);
          $('<div style="opacity:0.75"></div>')
            .text("Next: " + p.next.map((n) => n.local).join(" · "))
            .appendTo(box);
        })
        .fail((x) => {
          const body = x.responseJSON;
          const detail = body && typeof body === "object" ? (body as { detail?: unknown }).detail : undefined;
          // The check's detail names its own query field ("expression: …"); here the field is the one above.
          box.css("color", "#c0392b").text(detail ? String(detail).replace(/^expression: /, "") : "not a valid cron expression");
        });
    }
    input.on("input", () => {
      clearTimeout(timer);
      timer = setTimeout(show, 250);
    });
    show();
    return box;
  }
  function prepare(node: CareflowFormNode, schema: CareflowSchema, type: string): void {
    const root = rootOf(type);
    root.empty();
    const household = loadHousehold();
    const config = node.config || {};
    const state: FormState = { original: clone(config), touched: new Set<string>() };
    root.data("careflow-form", state);
    const properties = schema.properties || {};
    Object.keys(properties).forEach((key) => {
      renderField(root, type, key, key, properties[key], config[key], household);
    });
    $('<div class="careflow-node-problem form-row" style="color:#c0392b;display:none"></div>').prependTo(root);
    root.on("input change", "input, select, textarea", function (e) {
      if (byCode(e)) return;
      const key = $(this).closest("[data-careflow-key]").attr("data-careflow-key");
      if (key) state.touched.add(key);
    });
    if (Object.keys(properties).some((k) => variant(properties[k]).level_channels))
      window.careflowChannelsField.watchAudience(root, () => {
        const draft: { config?: Record<string, unknown> } = {};
        save(draft, schema, type);
        return draft.config || {};
      });
    watch(node, schema, type, root, household);
  }
  /**
   * One field's row. `key` is its config key, `path` its place in the form (`a__b` for field b of
   * object field a): a nested object (the trigger's `cts_window_config`) gets its own rows,
   * behind a checkbox when it may be empty (null).
   */
  function renderField(parent: JQuery, type: string, key: string, path: string, p: Field, given: unknown, household: JQueryXHR<Household | null>): void {
    const v = variant(p);
    const kind = kindOf(p);
    let value = given;
    if (value === undefined) value = p.default;
    const row = $('<div class="form-row"></div>').appendTo(parent);
    $('<label style="width:160px"></label>')
      .attr("for", id(type, path))
      .text(p.title || key.replace(/_/g, " "))
      .attr("title", p.description || "")
      .appendTo(row);
    let input: JQuery;
    if (kind === "enum") {
      input = $("<select></select>");
      if (!("default" in p)) $("<option></option>").val("").text("").appendTo(input);
      (v.enum || []).forEach((e) => {
        $("<option></option>").val(String(e)).text(String(e)).appendTo(input);
      });
      input.val(value === undefined || value === null ? "" : String(value));
    } else if (kind === "ref") {
      input = $("<select></select>");
      fillPicker(household, input, v.ref || "", value, nullable(p));
    } else if (kind === "refs") {
      input = $('<div class="careflow-choices careflow-refs" style="display:inline-flex;flex-wrap:wrap;gap:2px 0;vertical-align:top"></div>');
      fillChecks(household, input, variant(v.items || {}).ref || "", Array.isArray(value) ? value : []);
    } else if (kind === "knowledge") {
      input = $("<select></select>");
      fillKnowledge(input, v.knowledge || "", value);
    } else if (kind === "choices" && v.level_channels) {
      input = window.careflowChannelsField.render(id(type, path) + "-mode", v.items?.enum || [], value, checkbox);
    } else if (kind === "choices") {
      input = $('<div class="careflow-choices" style="display:inline-flex;flex-wrap:wrap;gap:2px 0;vertical-align:top"></div>');
      const chosen: unknown[] = Array.isArray(value) ? value : [];
      (v.items?.enum || []).forEach((e) => checkbox(String(e), String(e).replace(/_/g, " "), chosen.indexOf(e) >= 0).appendTo(input));
    } else if (kind === "object") {
      input = $('<input type="checkbox" style="width:auto">').prop("checked", !nullable(p) || (value !== null && value !== undefined));
      if (!nullable(p)) input.prop("disabled", true);
    } else if (kind === "boolean") {
      input = $('<input type="checkbox" style="width:auto">').prop("checked", !!value);
    } else if (kind === "number") {
      input = $('<input type="number">')
        .attr("step", v.type === "integer" ? "1" : "any")
        .val(shown(value));
    } else if (kind === "string" && !v.multiline) {
      input = $('<input type="text">').val(shown(value));
    } else if (kind === "string") {
      input = $('<textarea rows="4" style="width:70%"></textarea>').val(shown(value));
    } else if (kind === "list") {
      input = $('<input type="text">')
        .attr("placeholder", v.items?.enum ? v.items.enum.join(", ") : "comma separated")
        .val(Array.isArray(value) ? value.join(", ") : "");
    } else {
      input = $('<textarea rows="4" style="width:70%;font-family:monospace"></textarea>').val(
        value === undefined || value === null ? "" : JSON.stringify(value, null, 2),
      );
    }
    input.attr("id", id(type, path)).attr("data-careflow-key", path);
    if (kind !== "boolean" && kind !== "object") input.css("width", "calc(100% - 170px)");
    if (v.template) input.addClass("careflow-template");
    if (v.expression) input.addClass("careflow-expression");
    input.appendTo(row);
    if (key === "schedule_cron") cronPreview(input).appendTo(row);
    if (v.level_channels) $('<div class="careflow-audience" style="margin:4px 0 0 165px"></div>').appendTo(row);
    if (path === key)
      $('<div class="careflow-field-problem" style="margin:2px 0 0 165px;color:#c0392b;display:none"></div>').attr("data-careflow-problem", key).appendTo(row);
    if (p.description) $('<div style="margin:2px 0 0 165px;font-size:0.85em;opacity:0.75"></div>').text(p.description).appendTo(row);
    // Filled by the notification's audience answer (channels-field.ts) as the form changes.
    if (v.words_preview) $('<div class="careflow-words-preview" style="margin:4px 0 0 165px"></div>').appendTo(row);
    if (kind === "object") {
      const sub = $('<div class="careflow-object" style="margin-left:24px;padding-left:8px;border-left:2px solid #ddd"></div>')
        .attr("data-careflow-object", path)
        .appendTo(row);
      const inner = value && typeof value === "object" ? (value as Record<string, unknown>) : {};
      const props = v.properties || {};
      Object.keys(props).forEach((k) => renderField(sub, type, k, path + "__" + k, props[k], inner[k], household));
      const toggle = (): void => {
        sub.toggle(!!input.prop("checked"));
      };
      input.on("change", toggle);
      toggle();
    }
  }
  function checkbox(value: string, label: string, checked: boolean): JQuery {
    const box = $('<label style="width:auto;margin:0 12px 0 0;font-weight:normal;white-space:nowrap"></label>');
    $('<input type="checkbox" style="width:auto;margin:0 4px 0 0">').val(value).prop("checked", checked).appendTo(box);
    $("<span></span>").text(label).appendTo(box);
    return box;
  }
  /** A list of household names (rooms, persons, tracking cameras) as checkboxes; a chosen name the household lacks stays, marked. */
  function fillChecks(household: JQueryXHR<Household | null>, box: JQuery, ref: string, chosen: unknown[]): void {
    const has = (v: string) => chosen.some((c) => String(c) === v);
    // Checked at once, so a check before the list arrives reads them.
    chosen.forEach((c) => checkbox(String(c), String(c), true).appendTo(box));
    household.done((h) => {
      const options = (h && h[ref + "s"]) || [];
      box.empty();
      options.forEach((o) => checkbox(o.value, o.label, has(o.value)).appendTo(box));
      chosen
        .filter((c) => !options.some((o) => o.value === String(c)))
        .forEach((c) => checkbox(String(c), String(c) + " (not in the household)", true).appendTo(box));
      if (!options.length && !chosen.length) $('<span style="opacity:0.7"></span>').text("none known yet").appendTo(box);
    });
  }

  // Check the rule with this dialog's values as the caregiver types (the deploy's validator).
  function watch(node: CareflowFormNode, schema: CareflowSchema, type: string, root: JQuery, household: JQueryXHR<Household | null>): void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    function check(): void {
      const draft: CareflowFormNode = { id: node.id };
      save(draft, schema, type);
      if (!window.careflowChecks) return;
      window.careflowChecks.checkNode(node, draft.config, (problems) => showProblems(root, problems));
    }
    root.on("input change", "input, select, textarea", () => {
      clearTimeout(timer);
      timer = setTimeout(check, 400);
    });
    // The first check once the pickers have their options (their values are read from them).
    household.always(check);
  }
  function showProblems(root: JQuery, problems: CareflowProblem[]): void {
    root.find(".careflow-field-problem").hide().text("");
    const general = root.find(".careflow-node-problem").hide().empty();
    problems.forEach((p) => {
      const key = String(p.field || "")
        .replace(/^config_json\./, "")
        .replace(/^config\./, "")
        .split(".")[0];
      const slot = root.find('[data-careflow-problem="' + key + '"]');
      let line =
        p.message +
        (p.position !== undefined && !/\bat \d+/.test(p.message) ? " (at character " + (p.position + 1) + ")" : "") +
        (p.suggestion ? "; did you mean '" + p.suggestion + "'?" : "");
      if (p.severity === "warning") line = "⚠ " + line;
      if (slot.length) slot.text(slot.text() ? slot.text() + " · " + line : line).show();
      else $("<div></div>").text(line).appendTo(general.show());
    });
  }
  /**
   * Reads the form into `node.config`: the config the dialog opened with, with each field the
   * caregiver touched read from the form (and only those: a field shown with its default, or
   * an empty list, is not written into a config that left it out). True when it differs.
   */
  function save(node: { config?: Record<string, unknown> }, schema: CareflowSchema, type: string): boolean {
    const state = rootOf(type).data("careflow-form") as FormState | undefined;
    const original = state ? state.original : {};
    const config = clone(original);
    readFields(config, original, type, schema.properties || {}, schema.required || [], "", state ? state.touched : null);
    node.config = config;
    return JSON.stringify(config) !== JSON.stringify(original);
  }
  /** Whether the caregiver changed the field at `path` (or one inside it). */
  function touchedAt(touched: Set<string> | null, path: string): boolean {
    if (!touched) return true;
    let hit = false;
    touched.forEach((t) => {
      if (t === path || t.indexOf(path + "__") === 0) hit = true;
    });
    return hit;
  }
  /** Each touched field (all when `touched` is null) read into `into`, where it keeps its place; left out when empty. */
  function readFields(
    into: Record<string, unknown>,
    given: Record<string, unknown>,
    type: string,
    props: Record<string, Field>,
    required: string[],
    prefix: string,
    touched: Set<string> | null,
  ): void {
    Object.keys(props).forEach((key) => {
      const path = prefix ? prefix + "__" + key : key;
      if (!touchedAt(touched, path)) return;
      const value = readField(type, path, props[key], given[key], required.indexOf(key) >= 0, touched);
      if (value === undefined) delete into[key];
      else into[key] = value;
    });
  }
  /** One field of the form as the config holds it; undefined to leave it out (an empty field, or null when that is its default). */
  function readField(type: string, path: string, p: Field, given: unknown, required: boolean, touched: Set<string> | null): unknown {
    const v = variant(p);
    const kind = kindOf(p);
    const el = $("#" + id(type, path));
    const raw = el.val();
    if (kind === "boolean") return el.prop("checked");
    if (kind === "choices" || kind === "refs") {
      const list = el
        .find('input[type="checkbox"]:checked')
        .map<string, HTMLInputElement>(function () {
          return this.value;
        })
        .get();
      // The notification's channels: the level's own unless the caregiver chose a list, even an empty one (refused, visibly).
      if (v.level_channels) return el.find('input[value="chosen"]').prop("checked") ? list : undefined;
      // An empty list stays as it was: left out, or [] when the config had it.
      return list.length || required || Array.isArray(given) ? list : undefined;
    }
    if (kind === "object") {
      if (nullable(p) && !el.prop("checked")) return null;
      // A nested object the config had keeps its untouched fields; one just turned on is read whole.
      const had = given !== null && typeof given === "object" && !Array.isArray(given);
      const inner: Record<string, unknown> = had ? clone(given as Record<string, unknown>) : {};
      readFields(inner, had ? (given as Record<string, unknown>) : {}, type, v.properties || {}, v.required || [], path, had ? touched : null);
      return inner;
    }
    if (raw === "" || raw === undefined || raw === null) return nullable(p) && "default" in p && p.default === null ? null : undefined;
    if (kind === "number" || kind === "knowledge") return Number(raw);
    if (kind === "list")
      return String(raw)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => (v.items?.type === "string" ? s : Number(s)));
    if (kind === "json") {
      try {
        return JSON.parse(String(raw));
      } catch {
        return raw;
      }
    }
    return raw;
  }
  function problems(config: unknown, schema: CareflowSchema): string[] {
    const out: string[] = [];
    if (!config || typeof config !== "object") return ["config is not an object"];
    const values = config as Record<string, unknown>;
    const properties = schema.properties || {};
    Object.keys(values).forEach((k) => {
      if (!properties[k]) out.push(k + ": unknown field");
    });
    (schema.required || []).forEach((k) => {
      if (values[k] === undefined) out.push(k + ": required");
    });
    Object.keys(properties).forEach((k) => {
      const v = variant(properties[k]);
      const val = values[k];
      if (val === undefined || val === null) return;
      if (v.enum && v.enum.indexOf(val) < 0) out.push(k + ": one of " + v.enum.join(", "));
      if ((v.type === "number" || v.type === "integer") && typeof val !== "number") out.push(k + ": a number");
      if (typeof val === "number" && v.minimum !== undefined && val < v.minimum) out.push(k + ": at least " + v.minimum);
      if (typeof val === "number" && v.maximum !== undefined && val > v.maximum) out.push(k + ": at most " + v.maximum);
      if (v.type === "string" && typeof val !== "string") out.push(k + ": text");
      if (v.type === "boolean" && typeof val !== "boolean") out.push(k + ": true or false");
      if (v.type === "array" && !Array.isArray(val)) out.push(k + ": a list");
      if (Array.isArray(val) && v.minItems !== undefined && val.length < v.minItems)
        out.push(k + (v.level_channels ? ": choose at least one, or use the level's default channels" : ": at least " + v.minItems));
    });
    return out;
  }
  // Errors the server found in the rule as deployed from here (by node id): the node shows
  // Node-RED's red triangle for them too, before anyone presses Deploy.
  const serverErrors: Record<string, string[]> = {};
  function valid(c: unknown, s: CareflowSchema, node?: { id: string }): boolean {
    return problems(c, s).length === 0 && !(node && serverErrors[node.id] && serverErrors[node.id].length);
  }
  return { prepare, save, problems, valid, serverErrors };
})();
