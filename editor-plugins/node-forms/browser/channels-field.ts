/**
 * Browser code for the notification form's `channels` field (`window.careflowChannelsField`,
 * used by `form.ts`, issue 42): "the level's default channels (Reminder: tablet popup,
 * speaker, e-ink)", kept until the caregiver picks "these channels" and ticks them, so a node
 * opened and closed keeps using the level's channels and picking is a visible choice; and,
 * under it, who would see the message, asked of `careflow/notification-audience` as the
 * form changes; and, under the message, how it reads for each receiver with careflow's fixed
 * words around it in the receiver's language (issue 49), from the same answer.
 */
window.careflowChannelsField = (() => {
  /** `careflow/notification-audience` (runtime/care/services/notify/audience.ts). */
  interface Audience {
    level_defaults: string;
    default_channels: Array<{ channel: string; label: string }>;
    labels: Record<string, string>;
    channels: Array<{ channel: string; label: string; reaches: string[]; note?: string }>;
    text: string;
    previews: Preview[];
  }
  /** One receiver's view (runtime/care/services/notify/words-preview.ts). */
  interface Preview {
    receiver: string;
    channel: string;
    language: string;
    language_name: string;
    heading: string | null;
    message: string | null;
    buttons: string[];
    note: string | null;
    note_when: string | null;
  }

  /** One receiver's card: who and in which language, then the message as they will see it. */
  function previewCard(p: Preview): JQuery {
    const item = $('<div class="careflow-words-preview-item" style="margin:4px 0 6px 0"></div>')
      .attr("data-channel", p.channel)
      .attr("data-language", p.language);
    $('<div style="font-size:0.85em;opacity:0.75"></div>')
      .text(p.receiver + " · " + p.language_name)
      .appendTo(item);
    const card = $('<div class="careflow-words-card" style="border:1px solid #ccc;border-radius:4px;padding:4px 8px;background:#fafafa;max-width:480px"></div>')
      .attr("lang", p.language)
      .appendTo(item);
    if (p.heading) $('<div class="careflow-words-heading" style="font-weight:bold"></div>').text(p.heading).appendTo(card);
    const message = $('<div class="careflow-words-message" style="white-space:pre-wrap"></div>').appendTo(card);
    if (p.message !== null) message.text(p.message);
    else $('<i lang="en" style="opacity:0.6"></i>').text("(the run's message)").appendTo(message);
    if (p.buttons.length) {
      const row = $('<div class="careflow-words-buttons" style="margin-top:4px"></div>').appendTo(card);
      p.buttons.forEach((b) => {
        $('<span style="display:inline-block;border:1px solid #999;border-radius:3px;padding:0 6px;margin:0 4px 0 0;background:#fff"></span>')
          .text(b)
          .appendTo(row);
      });
    }
    if (p.note) {
      const note = $('<div class="careflow-words-note" style="margin-top:4px;opacity:0.8"></div>').text(p.note).appendTo(card);
      if (p.note_when) note.attr("title", p.note_when);
      if (p.note_when)
        $('<div style="font-size:0.85em;opacity:0.6" lang="en"></div>')
          .text("(" + p.note_when + ")")
          .appendTo(card);
    }
    return item;
  }

  /**
   * careflow's own Noto fonts (the tablet's, `/app/fonts.css`), so Devanagari and the other
   * scripts draw in the preview on a computer that has no such font; loaded once, when needed.
   */
  function loadFonts(): void {
    if ($("link[data-careflow-fonts]").length) return;
    $('<link rel="stylesheet" data-careflow-fonts="1">').attr("href", "../app/fonts.css").appendTo("head");
  }

  /** Under the message field: each receiver's card, or nothing when no channel adds words of its own. */
  function showPreviews(root: JQuery, previews: Preview[]): void {
    const box = root.find(".careflow-words-preview").empty();
    if (!previews.length) return;
    loadFonts();
    box.css("font-family", "var(--careflow-fonts, sans-serif)");
    $('<div style="font-weight:bold;margin-top:2px"></div>').text("How it reads for each of them, in their language:").appendTo(box);
    previews.forEach((p) => previewCard(p).appendTo(box));
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
      showPreviews(root, a.previews || []);
    }
    function ask(): void {
      $.ajax<Audience>({ method: "POST", url: "careflow/notification-audience", contentType: "application/json", data: JSON.stringify({ config: draft() }) })
        .done(shown)
        .fail(() => {
          root.find(".careflow-audience").text("");
          root.find(".careflow-words-preview").empty();
        });
    }
    root.on("input change", "input, select, textarea", () => {
      clearTimeout(timer);
      timer = setTimeout(ask, 250);
    });
    ask();
  }

  return { render, watchAudience };
})();
