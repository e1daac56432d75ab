/**
 * The Household page's Family chat tab (issue 43 §1, docs/chat.md): whether the bot's token
 * works (`GET /api/v1/chat/bot`, its name or why not); add a relative with a one-time code they
 * send to the bot as `/start CODE` (`POST /chat/link-codes`), the page watching until their chat
 * appears; each relative with the levels they get, changed with a tick (`PATCH
 * /chat/relatives/{chat_id}`), the language the bot speaks in their chat (issue 49: a picker of
 * the languages careflow has words for, or the household's), a "Send a test message" button and
 * its outcome. A caregiver reads it all; the buttons, ticks and pickers are the admin's.
 */

interface HpBot {
  configured: boolean;
  ok: boolean;
  name: string | null;
  username: string | null;
  detail: string | null;
}

interface HpRelative {
  name: string;
  chat_id: string;
  alert_levels: string[];
  language: string | null;
  source: "page" | "settings";
  changed_on_page: boolean;
  added_by: string | null;
  added_at: string | null;
}

interface HpLinkCode {
  id: number;
  name: string;
  alert_levels: string[];
  created_by: string;
  expires_at: string;
}

interface HpMadeCode extends HpLinkCode {
  code: string;
  message: string;
  link: string | null;
}

/** The spec's levels, said for the family. */
const HP_LEVELS: ReadonlyArray<{ level: string; label: string; says: string }> = [
  { level: "emergency", label: "Emergencies", says: "a fall, a cry for help" },
  { level: "warning", label: "Warnings", says: "something needs a look soon" },
  { level: "info", label: "Information", says: "how the day went" },
  { level: "reminder", label: "Reminders", says: "medication, appointments" },
];
const HP_CHAT_FIELDS = ["name", "alert_levels", "language"] as const;
/** How often the page looks for the relative while their code is shown. */
const HP_CHAT_WATCH_MS = 2000;

let hpChatWatch: number | undefined;
/** The languages careflow has words for, each in its own name (`/household/languages.json`). */
let hpChatLanguageList: Array<{ language: string; name: string }> | undefined;

async function hpChatLanguages(): Promise<Array<{ language: string; name: string }>> {
  if (!hpChatLanguageList) {
    const res = await fetch("/household/languages.json");
    hpChatLanguageList = res.ok ? ((await res.json()) as Array<{ language: string; name: string }>) : [];
  }
  return hpChatLanguageList;
}

/** "Deutsch", a tag careflow has no words for as it is, or "The household's" for none. */
function hpChatLanguageName(tag: string | null): string {
  if (!tag) return "The household's";
  return hpChatLanguageList?.find((l) => l.language === tag)?.name ?? tag;
}

/** The picker: the household's, each shipped language, and the relative's own tag when it is another (set in the settings or the API). */
function hpChatLanguageOptions(select: HTMLSelectElement, current: string | null): void {
  const tags = [...(hpChatLanguageList ?? []).map((l) => l.language)];
  if (current && !tags.includes(current)) tags.push(current);
  select.replaceChildren(
    hpEl("option", { value: "" }, hpChatLanguageName(null)),
    ...tags.map((tag) => hpEl("option", { value: tag, lang: tag }, hpChatLanguageName(tag))),
  );
  select.value = current ?? "";
}

/** A relative's language: a picker for the admin (saved at once), its name for a caregiver. */
function hpLanguageCell(r: HpRelative): HTMLElement {
  if (!hpIsAdmin) return hpEl("span", r.language ? { lang: r.language } : {}, hpChatLanguageName(r.language));
  const select = hpEl("select", { "data-field": "language", "aria-label": `Language of ${r.name}'s chat` });
  hpChatLanguageOptions(select, r.language);
  select.addEventListener("change", () =>
    hpTry(`Could not change ${r.name}'s language`, async () => {
      const saved = await hpApi<HpRelative>("PATCH", `/chat/relatives/${encodeURIComponent(r.chat_id)}`, { language: select.value || null });
      hpNotice(`The bot now writes to ${saved.name} in: ${hpChatLanguageName(saved.language)}.`, "ok");
      await hpLoadRelatives();
    }),
  );
  return select;
}

/** "Emergencies and warnings", "Every alert". */
function hpLevelsWords(levels: readonly string[]): string {
  if (levels.length === 0 || levels.length === HP_LEVELS.length) return "Every alert";
  const said = HP_LEVELS.filter((l) => levels.includes(l.level)).map((l) => l.label.toLowerCase());
  const text = said.length === 1 ? said[0] : `${said.slice(0, -1).join(", ")} and ${said[said.length - 1]}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The API keeps "every level" as an empty list; the page shows every tick for it. */
const hpTicked = (levels: readonly string[], level: string): boolean => levels.length === 0 || levels.includes(level);
const hpAsLevels = (ticked: string[]): string[] => (ticked.length === HP_LEVELS.length ? [] : ticked);

async function hpLoadBot(): Promise<void> {
  const box = hp$("chat-bot-status");
  box.textContent = "Asking the bot…";
  const bot = await hpApi<HpBot>("GET", "/chat/bot");
  const colour = bot.ok ? "green" : "red";
  const text = bot.ok
    ? `The bot works: ${bot.name ?? "the bot"}${bot.username ? ` (@${bot.username})` : ""} answers. Relatives write to it to join.`
    : (bot.detail ?? "The bot does not answer.");
  box.replaceChildren(hpEl("span", { class: "dot", "data-colour": colour, "aria-hidden": "true" }), ` ${text}`);
  box.dataset.colour = colour;
  box.dataset.ok = String(bot.ok);
}

/** A relative's levels: ticks for the admin (each change saved at once), words for a caregiver. */
function hpLevelsCell(r: HpRelative): HTMLElement {
  if (!hpIsAdmin) return hpEl("span", {}, hpLevelsWords(r.alert_levels));
  const group = hpEl("fieldset", { class: "levels-inline" }, hpEl("legend", { class: "visually-hidden" }, `Alerts ${r.name} gets`));
  for (const l of HP_LEVELS) {
    const box = hpEl("input", { type: "checkbox", value: l.level, "data-level": l.level, ...(hpTicked(r.alert_levels, l.level) ? { checked: "" } : {}) });
    box.addEventListener("change", () => {
      const ticked = Array.from(group.querySelectorAll<HTMLInputElement>("input:checked")).map((b) => b.value);
      if (ticked.length === 0) {
        box.checked = true;
        hpNotice(`${r.name} must get at least one kind of alert: remove them instead to stop every message.`, "error");
        return;
      }
      void hpTry(`Could not change ${r.name}'s alerts`, async () => {
        const saved = await hpApi<HpRelative>("PATCH", `/chat/relatives/${encodeURIComponent(r.chat_id)}`, { alert_levels: hpAsLevels(ticked) });
        hpNotice(`${saved.name} now gets: ${hpLevelsWords(saved.alert_levels).toLowerCase()}.`, "ok");
        await hpLoadRelatives();
      });
    });
    group.append(hpEl("label", { class: "choice level" }, box, l.label));
  }
  return group;
}

function hpRelativeActions(r: HpRelative, outcome: HTMLElement): HTMLElement {
  const actions = hpEl("div", { class: "row-actions" });
  if (!hpIsAdmin) return actions;
  const test = hpEl("button", { type: "button", "data-action": "test" }, "Send a test message");
  test.addEventListener("click", () =>
    hpTry("Could not send", async () => {
      outcome.textContent = "Sending…";
      outcome.dataset.colour = "";
      const sent = await hpApi<{ delivered: boolean; detail: string }>("POST", `/chat/relatives/${encodeURIComponent(r.chat_id)}/test`, {});
      outcome.textContent = sent.delivered ? `Sent ${hpWhen(new Date().toISOString())}: ask ${r.name} whether it arrived.` : `Not sent: ${sent.detail}`;
      outcome.dataset.colour = sent.delivered ? "green" : "red";
    }),
  );
  actions.append(test);
  // A settings file chat is removed in the file; the page may only take back its own change.
  if (r.source === "page" || r.changed_on_page) {
    const label = r.source === "page" ? "Remove" : "Use the file's alerts";
    const remove = hpEl("button", { type: "button", "data-action": "remove", class: r.source === "page" ? "danger" : "" }, label);
    remove.addEventListener("click", () => {
      if (r.source === "page" && !window.confirm(`Remove ${r.name}? Their chat gets no more messages from careflow.`)) return;
      void hpTry(`Could not remove ${r.name}`, async () => {
        await hpApi<null>("DELETE", `/chat/relatives/${encodeURIComponent(r.chat_id)}`);
        hpNotice(r.source === "page" ? `Removed ${r.name}.` : `${r.name} gets the settings file's alerts again.`, "ok");
        await hpLoadRelatives();
      });
    });
    actions.append(remove);
  }
  return actions;
}

async function hpLoadRelatives(): Promise<HpRelative[]> {
  const [relatives, codes] = await Promise.all([
    hpApi<HpRelative[]>("GET", "/chat/relatives"),
    hpApi<HpLinkCode[]>("GET", "/chat/link-codes"),
    hpChatLanguages(),
  ]);
  const tbody = hp$("chat-relatives").querySelector("tbody")!;
  if (relatives.length === 0) hpEmptyRow(tbody, 6, "No relative gets the alerts yet: add one above.");
  else
    tbody.replaceChildren(
      ...relatives.map((r) => {
        const outcome = hpEl("p", { class: "test-outcome", role: "status" });
        const from =
          r.source === "settings"
            ? hpEl(
                "span",
                { class: "badge", "data-status": "settings", title: "Listed in the settings file" },
                r.changed_on_page ? "settings file, alerts changed here" : "settings file",
              )
            : hpEl("span", {}, `Added ${hpWhen(r.added_at, "")}${r.added_by ? ` by ${r.added_by}` : ""}`);
        return hpEl(
          "tr",
          { "data-chat-id": r.chat_id, "data-relative": r.name },
          hpEl("td", {}, r.name),
          hpEl("td", { class: "mono" }, r.chat_id),
          hpEl("td", {}, hpLevelsCell(r)),
          hpEl("td", {}, hpLanguageCell(r)),
          hpEl("td", {}, from),
          hpEl("td", {}, hpRelativeActions(r, outcome), outcome),
        );
      }),
    );
  const list = hp$("chat-codes");
  hp$("chat-codes-box").hidden = codes.length === 0;
  list.replaceChildren(
    ...codes.map((c) => {
      const item = hpEl("li", { "data-code-id": String(c.id) }, `${c.name}: ${hpLevelsWords(c.alert_levels).toLowerCase()}, until ${hpWhen(c.expires_at)} `);
      if (hpIsAdmin) {
        const cancel = hpEl("button", { type: "button", "data-action": "cancel-code" }, "Cancel");
        cancel.addEventListener("click", () =>
          hpTry("Could not cancel", async () => {
            await hpApi<null>("DELETE", `/chat/link-codes/${c.id}`);
            hpNotice(`${c.name}'s code no longer works.`, "ok");
            await hpLoadRelatives();
          }),
        );
        item.append(cancel);
      }
      return item;
    }),
  );
  return relatives;
}

function hpStopWatching(): void {
  window.clearInterval(hpChatWatch);
  hpChatWatch = undefined;
}

/** The code, the exact message and the bot's link; then the page looks for the new chat until it comes or the code expires. */
function hpShowCode(made: HpMadeCode, before: ReadonlySet<string>): void {
  hp$("chat-made-title").textContent = `Ask ${made.name} to send this to the bot`;
  hp$("chat-made-message").textContent = made.message;
  const link = hp$<HTMLAnchorElement>("chat-made-link");
  link.hidden = !made.link;
  if (made.link) {
    link.href = made.link;
    link.textContent = made.link;
  }
  hp$("chat-made-expires").textContent = `The code works once, until ${hpWhen(made.expires_at)}.`;
  const waiting = hp$("chat-made-waiting");
  waiting.textContent = `Waiting for ${made.name} to send it…`;
  waiting.dataset.colour = "";
  hp$("chat-made").hidden = false;
  hp$("chat-made").scrollIntoView({ block: "nearest" });
  hpStopWatching();
  hpChatWatch = window.setInterval(() => {
    if (hp$("chat-made").hidden || hp$("tab-chat").hidden || document.body.dataset.signedIn !== "true") return hpStopWatching();
    if (Date.now() > Date.parse(made.expires_at)) {
      waiting.textContent = `The code has expired: make a new one for ${made.name}.`;
      return hpStopWatching();
    }
    void hpTry("Could not read the relatives", async () => {
      // Only read, not redrawn, until they join: a tick or a button the admin is at stays put.
      const joined = (await hpApi<HpRelative[]>("GET", "/chat/relatives")).find((r) => !before.has(r.chat_id) && r.name === made.name);
      if (!joined || hpChatWatch === undefined) return;
      hpStopWatching();
      await hpLoadRelatives();
      waiting.textContent = `${joined.name} has joined: the bot welcomed them in their chat. Send a test message below to be sure.`;
      waiting.dataset.colour = "green";
      hpNotice(`${joined.name} now gets the family's alerts.`, "ok");
    });
  }, HP_CHAT_WATCH_MS);
}

async function hpReloadChat(): Promise<void> {
  await Promise.all([hpLoadBot(), hpLoadRelatives()]);
  const picker = hp$<HTMLSelectElement>("chat-language");
  // Filled once: a choice the admin is making stays.
  if (picker.options.length <= 1) hpChatLanguageOptions(picker, null);
}

function hpChatInit(): void {
  hpTabLoaders.chat = hpReloadChat;
  const levels = hp$("chat-levels");
  for (const l of HP_LEVELS) {
    const id = `chat-level-${l.level}`;
    const checked: Record<string, string> = l.level === "emergency" || l.level === "warning" ? { checked: "" } : {};
    levels.append(
      hpEl(
        "label",
        { class: "choice role" },
        hpEl("input", { type: "checkbox", name: "alert_levels", value: l.level, id, "aria-describedby": `${id}-says`, ...checked }),
        hpEl("span", { class: "role-name" }, l.label),
        hpEl("span", { class: "muted role-says", id: `${id}-says` }, l.says),
      ),
    );
  }
  const form = hp$<HTMLFormElement>("chat-form");
  hpClearOnEdit("chat", HP_CHAT_FIELDS);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const ticked = data.getAll("alert_levels").map(String);
    hpClearFieldErrors("chat", HP_CHAT_FIELDS);
    if (ticked.length === 0) return hpShowFieldErrors("chat", HP_CHAT_FIELDS, "alert_levels: tick at least one kind of alert");
    const body = { name: String(data.get("name") ?? ""), alert_levels: hpAsLevels(ticked), language: String(data.get("language") ?? "") || null };
    hpApi<HpRelative[]>("GET", "/chat/relatives")
      .then(async (now) => {
        const made = await hpApi<HpMadeCode>("POST", "/chat/link-codes", body);
        form.reset();
        hpShowCode(made, new Set(now.map((r) => r.chat_id)));
        await hpLoadRelatives();
      })
      .catch((err: Error) => hpShowFieldErrors("chat", HP_CHAT_FIELDS, err.message));
  });
  hp$("chat-made-done").addEventListener("click", () => {
    hpStopWatching();
    hp$("chat-made").hidden = true;
  });
  hp$("chat-bot-check").addEventListener("click", () => void hpTry("Could not ask the bot", hpLoadBot));
}
