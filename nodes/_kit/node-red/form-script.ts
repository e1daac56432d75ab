/**
 * Browser code shared by every care node's edit dialog: builds the form from the type's
 * JSON Schema (household pickers for sensor, room and person fields, checkboxes for a list
 * of choices, a cron field with its plain-words preview and next fire times), reads it back
 * into `node.config`, and checks a config in the editor: its shape here, and the whole rule
 * through the deploy's own validator on the server (editor-plugins/form-checks) as the
 * caregiver types, with each problem shown under its field.
 */
export const FORM_SCRIPT = String.raw`
window.careflowForm = (function () {
  // A nullable field comes as anyOf [X, null] or as type [X, "null"]: its variant is X.
  function variant(p) {
    var v = p.anyOf ? p.anyOf.filter(function (x) { return x.type !== "null"; })[0] || {} : p;
    if (Array.isArray(v.type)) v = $.extend({}, v, { type: v.type.filter(function (t) { return t !== "null"; })[0] });
    return v;
  }
  function nullable(p) { return !!p.anyOf || (Array.isArray(p.type) && p.type.indexOf("null") >= 0); }
  function kindOf(p) {
    var v = variant(p);
    if (v.ref) return "ref";
    if (v.enum) return "enum";
    if (v.type === "boolean") return "boolean";
    if (v.type === "integer" || v.type === "number") return "number";
    if (v.type === "string") return "string";
    if (v.type === "array" && v.items && v.items.enum) return "choices";
    if (v.type === "array" && v.items && (v.items.type === "string" || v.items.type === "number" || v.items.type === "integer")) return "list";
    return "json";
  }
  function id(type, key) { return "careflow-" + type.replace(/[^a-z0-9_-]/gi, "_") + "-" + key; }
  // The household's names for the pickers: asked again each time a dialog opens.
  var household = null;
  function loadHousehold() {
    household = $.getJSON("careflow/household");
    return household;
  }
  function fillPicker(select, ref, value, optional) {
    select.empty();
    if (optional || value === undefined || value === null || value === "") $("<option></option>").val("").text(optional ? "(none)" : "choose…").appendTo(select);
    household.done(function (h) {
      var options = (h && h[ref + "s"]) || [];
      options.forEach(function (o) { $("<option></option>").val(o.value).text(o.label).appendTo(select); });
      var known = options.some(function (o) { return o.value === value; });
      if (value && !known) $("<option></option>").val(value).text(value + " (not in the household)").appendTo(select);
      select.val(value === undefined || value === null ? "" : value);
    });
  }
  function cronPreview(input) {
    var box = $('<div class="careflow-cron-preview" style="margin:2px 0 0 165px;font-size:0.9em"></div>');
    var timer = null;
    function show() {
      var text = String(input.val() || "").trim();
      if (!text) { box.text(""); return; }
      $.getJSON("careflow/cron-preview", { expression: text })
        .done(function (p) {
          box.empty().css("color", "");
          $("<div></div>").text(p.description + " (" + p.time_zone + ")").appendTo(box);
          $('<div style="opacity:0.75"></div>').text("Next: " + p.next.map(function (n) { return n.local; }).join(" · ")).appendTo(box);
        })
        .fail(function (x) { box.css("color", "#c0392b").text((x.responseJSON && x.responseJSON.detail) || "not a valid cron expression"); });
    }
    input.on("input", function () { clearTimeout(timer); timer = setTimeout(show, 250); });
    show();
    return box;
  }
  function prepare(node, schema, type) {
    var root = $("#careflow-form-" + type.replace(/[^a-z0-9_-]/gi, "_"));
    root.empty();
    loadHousehold();
    var config = node.config || {};
    Object.keys(schema.properties || {}).forEach(function (key) {
      var p = schema.properties[key], v = variant(p), kind = kindOf(p), value = config[key];
      if (value === undefined) value = p.default;
      var row = $('<div class="form-row"></div>').appendTo(root);
      $('<label style="width:160px"></label>').attr("for", id(type, key)).text(key.replace(/_/g, " ")).attr("title", p.description || "").appendTo(row);
      var input;
      if (kind === "enum") {
        input = $("<select></select>");
        if (!("default" in p)) $("<option></option>").val("").text("").appendTo(input);
        (v.enum || []).forEach(function (e) { $("<option></option>").val(String(e)).text(String(e)).appendTo(input); });
        input.val(value === undefined || value === null ? "" : String(value));
      } else if (kind === "ref") {
        input = $("<select></select>");
        fillPicker(input, v.ref, value, nullable(p));
      } else if (kind === "choices") {
        input = $('<div class="careflow-choices" style="display:inline-flex;flex-wrap:wrap;gap:2px 0;vertical-align:top"></div>');
        var chosen = Array.isArray(value) ? value : [];
        v.items.enum.forEach(function (e) {
          var box = $('<label style="width:auto;margin:0 12px 0 0;font-weight:normal;white-space:nowrap"></label>');
          $('<input type="checkbox" style="width:auto;margin:0 4px 0 0">').val(String(e)).prop("checked", chosen.indexOf(e) >= 0).appendTo(box);
          $("<span></span>").text(String(e).replace(/_/g, " ")).appendTo(box);
          box.appendTo(input);
        });
      } else if (kind === "boolean") {
        input = $('<input type="checkbox" style="width:auto">').prop("checked", !!value);
      } else if (kind === "number") {
        input = $('<input type="number">').attr("step", v.type === "integer" ? "1" : "any").val(value === undefined || value === null ? "" : value);
      } else if (kind === "string" && !v.multiline) {
        input = $('<input type="text">').val(value === undefined || value === null ? "" : value);
      } else if (kind === "string") {
        input = $('<textarea rows="4" style="width:70%"></textarea>').val(value === undefined || value === null ? "" : value);
      } else if (kind === "list") {
        input = $('<input type="text">').attr("placeholder", v.items.enum ? v.items.enum.join(", ") : "comma separated").val(Array.isArray(value) ? value.join(", ") : "");
      } else {
        input = $('<textarea rows="4" style="width:70%;font-family:monospace"></textarea>').val(value === undefined || value === null ? "" : JSON.stringify(value, null, 2));
      }
      input.attr("id", id(type, key)).attr("data-careflow-key", key);
      if (kind !== "boolean") input.css("width", "calc(100% - 170px)");
      if (v.template) input.addClass("careflow-template");
      if (v.expression) input.addClass("careflow-expression");
      input.appendTo(row);
      if (key === "schedule_cron") cronPreview(input).appendTo(row);
      $('<div class="careflow-field-problem" style="margin:2px 0 0 165px;color:#c0392b;display:none"></div>').attr("data-careflow-problem", key).appendTo(row);
      if (p.description) $('<div style="margin:2px 0 0 165px;font-size:0.85em;opacity:0.75"></div>').text(p.description).appendTo(row);
    });
    $('<div class="careflow-node-problem form-row" style="color:#c0392b;display:none"></div>').prependTo(root);
    watch(node, schema, type, root);
  }

  // Check the rule with this dialog's values as the caregiver types (the deploy's validator).
  function watch(node, schema, type, root) {
    var timer = null;
    function check() {
      var draft = { id: node.id };
      save(draft, schema, type);
      if (!window.careflowChecks) return;
      window.careflowChecks.checkNode(node, draft.config, function (problems) { showProblems(root, problems); });
    }
    root.on("input change", "input, select, textarea", function () { clearTimeout(timer); timer = setTimeout(check, 400); });
    // The first check once the pickers have their options (their values are read from them).
    household.always(check);
  }
  function showProblems(root, problems) {
    root.find(".careflow-field-problem").hide().text("");
    var general = root.find(".careflow-node-problem").hide().empty();
    problems.forEach(function (p) {
      var key = String(p.field || "").replace(/^config_json\./, "").replace(/^config\./, "").split(".")[0];
      var slot = root.find('[data-careflow-problem="' + key + '"]');
      var line = p.message + (p.position !== undefined && !/\bat \d+/.test(p.message) ? " (at character " + (p.position + 1) + ")" : "") + (p.suggestion ? "; did you mean '" + p.suggestion + "'?" : "");
      if (p.severity === "warning") line = "⚠ " + line;
      if (slot.length) slot.text(slot.text() ? slot.text() + " · " + line : line).show();
      else $("<div></div>").text(line).appendTo(general.show());
    });
  }
  function save(node, schema, type) {
    var config = {};
    Object.keys(schema.properties || {}).forEach(function (key) {
      var p = schema.properties[key], v = variant(p), kind = kindOf(p), el = $("#" + id(type, key)), raw = el.val();
      if (kind === "boolean") { config[key] = el.prop("checked"); return; }
      if (kind === "choices") { config[key] = el.find("input:checked").map(function () { return this.value; }).get(); return; }
      if (raw === "" || raw === undefined || raw === null) { if (nullable(p) && "default" in p && p.default === null) config[key] = null; return; }
      if (kind === "number") config[key] = Number(raw);
      else if (kind === "list") config[key] = String(raw).split(",").map(function (s) { return s.trim(); }).filter(Boolean).map(function (s) { return v.items.type === "string" ? s : Number(s); });
      else if (kind === "json") { try { config[key] = JSON.parse(raw); } catch (e) { config[key] = raw; } }
      else config[key] = raw;
    });
    node.config = config;
  }
  function problems(config, schema) {
    var out = [];
    if (!config || typeof config !== "object") return ["config is not an object"];
    Object.keys(config).forEach(function (k) { if (!(schema.properties || {})[k]) out.push(k + ": unknown field"); });
    (schema.required || []).forEach(function (k) { if (config[k] === undefined) out.push(k + ": required"); });
    Object.keys(schema.properties || {}).forEach(function (k) {
      var p = schema.properties[k], v = variant(p), val = config[k];
      if (val === undefined || val === null) return;
      if (v.enum && v.enum.indexOf(val) < 0) out.push(k + ": one of " + v.enum.join(", "));
      if ((v.type === "number" || v.type === "integer") && typeof val !== "number") out.push(k + ": a number");
      if (typeof val === "number" && v.minimum !== undefined && val < v.minimum) out.push(k + ": at least " + v.minimum);
      if (typeof val === "number" && v.maximum !== undefined && val > v.maximum) out.push(k + ": at most " + v.maximum);
      if (v.type === "string" && typeof val !== "string") out.push(k + ": text");
      if (v.type === "boolean" && typeof val !== "boolean") out.push(k + ": true or false");
      if (v.type === "array" && !Array.isArray(val)) out.push(k + ": a list");
    });
    return out;
  }
  // Errors the server found in the rule as deployed from here (by node id): the node shows
  // Node-RED's red triangle for them too, before anyone presses Deploy.
  var serverErrors = {};
  function valid(c, s, node) { return problems(c, s).length === 0 && !(node && serverErrors[node.id] && serverErrors[node.id].length); }
  return { prepare: prepare, save: save, problems: problems, valid: valid, serverErrors: serverErrors };
})();
`;
