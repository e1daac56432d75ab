/**
 * Node-RED plugin (editor side): while a care node's form is open, a template field
 * (`.careflow-template`) or expression field (`.careflow-expression`) offers the known
 * pipeline_data keys after `{{` (templates) or at the word being typed (expressions).
 */
RED.plugins.registerPlugin("careflow-template-autocomplete", {
  type: "careflow-editor",
  onadd: () => {
    /** A pipeline_data key as `careflow/data-keys` lists it. */
    interface DataKey {
      key: string;
      type: string;
    }
    interface Completion {
      value: string;
      label: string;
    }

    let keys: DataKey[] = [];
    $.getJSON<{ keys?: DataKey[] }>("careflow/data-keys", (data) => {
      keys = data.keys || [];
    });
    function completions(value: string, template: boolean): Completion[] {
      const open = template ? value.lastIndexOf("{{") : -1;
      if (template && (open < 0 || value.indexOf("}}", open) >= 0)) return [];
      const start = template ? open + 2 : Math.max(value.search(/[A-Za-z0-9_.]*$/), 0);
      const prefix = value.slice(start).replace(/^\s+/, "");
      return keys
        .filter((k) => k.key.indexOf(prefix) === 0 && k.key !== prefix)
        .slice(0, 30)
        .map((k) => {
          const done = value.slice(0, start) + (template ? k.key + "}}" : k.key);
          return { value: done, label: k.key + "  (" + k.type + ")" };
        });
    }
    function attach(root: JQuery): void {
      if (!$.fn.autoComplete) return;
      root.find(".careflow-template, .careflow-expression").each(function () {
        const input = $(this);
        if (input.data("careflow-ac")) return;
        input.data("careflow-ac", true);
        const template = input.hasClass("careflow-template");
        input.autoComplete({
          search: (value, done) => {
            const r = completions(value, template);
            if (done) done(r);
            return r;
          },
        });
      });
    }
    RED.events.on("editor:open", () => {
      setTimeout(() => attach($(".red-ui-editor")), 0);
    });
  },
});
