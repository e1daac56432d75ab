/**
 * Browser code shared by every care node's edit dialog: builds the form from the type's
 * JSON Schema, reads it back into `node.config`, and checks a config in the editor (the
 * server checks again at deploy with the zod spec itself).
 */
export const FORM_SCRIPT = String.raw`
window.careflowForm = (function () {
  function kindOf(p) {
    var v = p.anyOf ? p.anyOf.filter(function (x) { return x.type !== "null"; })[0] || {} : p;
    if (v.enum) return "enum";
    if (v.type === "boolean") return "boolean";
    if (v.type === "integer" || v.type === "number") return "number";
    if (v.type === "string") return "string";
    if (v.type === "array" && v.items && (v.items.type === "string" || v.items.type === "number" || v.items.type === "integer")) return "list";
    return "json";
  }
  function variant(p) { return p.anyOf ? p.anyOf.filter(function (x) { return x.type !== "null"; })[0] || {} : p; }
  function id(type, key) { return "careflow-" + type.replace(/[^a-z0-9_-]/gi, "_") + "-" + key; }
  function prepare(node, schema, type) {
    var root = $("#careflow-form-" + type.replace(/[^a-z0-9_-]/gi, "_"));
    root.empty();
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
        input = $('<textarea rows="4" style="width:70%;font-family:monospace"></textarea>').val(value === undefined ? "" : JSON.stringify(value, null, 2));
      }
      input.attr("id", id(type, key)).attr("data-careflow-key", key);
      if (kind !== "boolean") input.css("width", "calc(100% - 170px)");
      if (v.template) input.addClass("careflow-template");
      if (v.expression) input.addClass("careflow-expression");
      input.appendTo(row);
      if (p.description) $('<div style="margin:2px 0 0 165px;font-size:0.85em;opacity:0.75"></div>').text(p.description).appendTo(row);
    });
  }
  function save(node, schema, type) {
    var config = {};
    Object.keys(schema.properties || {}).forEach(function (key) {
      var p = schema.properties[key], v = variant(p), kind = kindOf(p), el = $("#" + id(type, key)), raw = el.val();
      if (kind === "boolean") { config[key] = el.prop("checked"); return; }
      if (raw === "" || raw === undefined || raw === null) { if (p.anyOf && "default" in p && p.default === null) config[key] = null; return; }
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
  return { prepare: prepare, save: save, problems: problems, valid: function (c, s) { return problems(c, s).length === 0; } };
})();
`;
