/**
 * Node-RED plugin (editor side): while a care node's form is open, a template field
 * (`.careflow-template`) or expression field (`.careflow-expression`) offers the known
 * pipeline_data keys after `{{` (templates) or at the word being typed (expressions).
 */
export const AUTOCOMPLETE_EDITOR_SCRIPT = String.raw`
RED.plugins.registerPlugin("careflow-template-autocomplete", {
  type: "careflow-editor",
  onadd: function () {
    var keys = [];
    $.getJSON("careflow/data-keys", function (data) { keys = data.keys || []; });
    function completions(value, template) {
      var open = template ? value.lastIndexOf("{{") : -1;
      if (template && (open < 0 || value.indexOf("}}", open) >= 0)) return [];
      var start = template ? open + 2 : Math.max(value.search(/[A-Za-z0-9_.]*$/), 0);
      var prefix = value.slice(start).replace(/^\s+/, "");
      return keys
        .filter(function (k) { return k.key.indexOf(prefix) === 0 && k.key !== prefix; })
        .slice(0, 30)
        .map(function (k) {
          var done = value.slice(0, start) + (template ? k.key + "}}" : k.key);
          return { value: done, label: k.key + "  (" + k.type + ")" };
        });
    }
    function attach(root) {
      if (!$.fn.autoComplete) return;
      root.find(".careflow-template, .careflow-expression").each(function () {
        var input = $(this);
        if (input.data("careflow-ac")) return;
        input.data("careflow-ac", true);
        var template = input.hasClass("careflow-template");
        input.autoComplete({ search: function (value, done) { var r = completions(value, template); if (done) done(r); return r; } });
      });
    }
    RED.events.on("editor:open", function () { setTimeout(function () { attach($(".red-ui-editor")); }, 0); });
  }
});
`;
