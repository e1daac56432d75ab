/**
 * Browser code for the notification form's `channels` field (`window.careflowChannelsField`,
 * used by `form.ts`, issue 42): "the level's default channels (Reminder: tablet popup,
 * speaker, e-ink)", kept until the caregiver picks "these channels" and ticks them, so a node
 * opened and closed keeps using the level's channels and picking is a visible choice; and,
 * under it, who would see the message, asked of `careflow/notification-audience` as the
 * form changes.
 */
window.careflowChannelsField = (() => {
  /** `careflow/notification-audience` (runtime/care/notify/audience.ts). */
  interface Audience {
    level_defaults: string;
    default_channels: Array<{ channel: string; label: string }>;
    labels: Record<string, string>;
    channels: Array<{ channel: string; label: string; reaches: string[]; note?: string }>;
    text: string;
  }

  /** The field: the two choices (radios named `name`) and the channels' checkboxes, shown once "these channels" is chosen. */
  function render(name: string, channels: unknown[], value: unknown, checkbox: (value: string, label: string, checked: boolean) => JQuery): JQuery {
    const box = $('<div class="careflow-level-channels" style="display:inline-block;vertical-align:top"></div>');
    const chosen: unknown[] = Array.isArray(value) ? value : [];
    const mode = (val: string, text: string, checked: boolean): JQuery => {
      const row = $('<label style="width:auto;display:block;margin:0 0 2px 0;font-weight:normal"></label>').addClass("careflow-channels-" + val);
      $('<input type="radio" style="width:auto;margin:0 4px 0 0">').attr("name", name).val(val).prop("checked", checked).appendTo(row);
      $("<span></span>").text(text).appendTo(row);
      return row.appendTo(box);
    };
    $('<span class="careflow-level-defaults" style="opacity:0.75"></span>').appendTo(mode("level", "the level's default channels ", !Array.isArray(value)));
    mode("chosen", "these channels:", Array.isArray(value));
    const checks = $('<div class="careflow-choices" style="display:flex;flex-wrap:wrap;gap:2px 0;margin-left:20px"></div>').appendTo(box);
    channels.forEach((e) => checkbox(String(e), String(e).replace(/_/g, " "), chosen.indexOf(e) >= 0).appendTo(checks));
    const show = (): void => {
      checks.toggle(box.find('input[value="chosen"]').prop("checked"));
    };
    box.on("change", 'input[type="radio"]', function () {
      // Choosing starts from the level's channels, so nothing is dropped unseen.
      if ($(this).val() === "chosen" && !checks.find("input:checked").length) {
        const defaults = (box.data("level-channels") as string[] | undefined) || [];
        checks.find("input").each<HTMLInputElement>(function () {
          if (defaults.indexOf(this.value) >= 0) $(this).prop("checked", true);
        });
      }
      show();
    });
    show();
    return box;
  }

  /** Says, under the field, which the level's defaults are and who would see the message; asked again as the form changes. */
  function watchAudience(root: JQuery, draft: () => Record<string, unknown>): void {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The checkbox is a label of its own: "Tablet popup", as the channel's name is written.
    const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
    function shown(a: Audience): void {
      const box = root.find(".careflow-level-channels");
      box.data(
        "level-channels",
        a.default_channels.map((c) => c.channel),
      );
      box.find(".careflow-level-defaults").text("(" + a.level_defaults + ")");
      box.find(".careflow-choices input").each<HTMLInputElement>(function () {
        $(this)
          .next()
          .text(capital(a.labels[this.value] || this.value));
      });
      const line = root.find(".careflow-audience").empty();
      $('<div class="careflow-audience-who"></div>')
        .text("Who will see it: " + a.text)
        .appendTo(line);
      a.channels
        .filter((c) => c.note)
        .forEach((c) => {
          $('<div class="careflow-audience-note" style="color:#b36b00"></div>')
            .text("⚠ " + capital(c.label) + ": " + c.note)
            .appendTo(line);
        });
    }
    function ask(): void {
      $.ajax<Audience>({ method: "POST", url: "careflow/notification-audience", contentType: "application/json", data: JSON.stringify({ config: draft() }) })
        .done(shown)
        .fail(() => root.find(".careflow-audience").text(""));
    }
    root.on("input change", "input, select, textarea", () => {
      clearTimeout(timer);
      timer = setTimeout(ask, 250);
    });
    ask();
  }

  return { render, watchAudience };
})();
