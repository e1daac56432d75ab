/**
 * The family's Household page (`/household/`, docs/household-page.md): the shell, built as the
 * Knowledge page is. Plain global scripts loaded in order (hp-core, hp-devices, hp-people, hp-chat, hp-access,
 * hp-rooms, hp-connections, hp-health, hp-backups, hp-setup), their names prefixed `hp`; this one holds the key, the REST calls, the tabs, the notices and
 * the errors beside a form's fields, and starts the rest once the page is parsed.
 *
 * The key is the one the editor is logged in with, typed once and kept in sessionStorage: the
 * page calls the same `/api/v1` a script would, with the same role checks. Keys and the audit
 * log are the admin's (the API answers a caregiver 403): a caregiver is told so in one plain
 * sentence instead of an error.
 */

const HP_KEY_STORE = "careflow.household.key";

let hpKey: string | null = sessionStorage.getItem(HP_KEY_STORE);
/** Whether the signed-in key may manage keys (`GET /admin/keys` answered it). */
let hpIsAdmin = false;

/** A REST error said in the server's words (`{"detail"}`). */
class HpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function hp$<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** Makes an element with text and attributes (never innerHTML: every text is the family's). */
function hpEl<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c);
  return el;
}

async function hpApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { "X-API-Key": hpKey ?? "" };
  let payload: string | undefined;
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(`/api/v1${path}`, { method, headers, body: payload });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null; // not JSON: the status line says what happened
  }
  if (!res.ok) {
    const detail =
      parsed && typeof parsed === "object" && typeof (parsed as { detail?: unknown }).detail === "string"
        ? (parsed as { detail: string }).detail
        : `${res.status} ${res.statusText}`;
    if (res.status === 401) hpSignOut(detail);
    throw new HpError(res.status, detail);
  }
  return parsed as T;
}

function hpNotice(text: string, kind: "ok" | "error" | "" = ""): void {
  const n = hp$("notice");
  n.textContent = text;
  n.className = kind;
}

/** Runs an action, saying its error in the notice line instead of failing silently. */
async function hpTry(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    hpNotice(`${what}: ${err instanceof Error ? err.message : String(err)}`, "error");
  }
}

/**
 * Says a refused write beside its field: the API names the field first (`name: a key named …`,
 * several joined by "; "), as every 422 and 409 of `/api/v1` does. A part that names no field
 * of the form is said under the form (`<prefix>-form-error`).
 */
function hpShowFieldErrors(prefix: string, fields: readonly string[], detail: string): void {
  hpClearFieldErrors(prefix, fields);
  const said: Record<string, string[]> = {};
  const say = (field: string, text: string) => (said[field] ??= []).push(text);
  let current = "form";
  for (const part of detail.split("; ")) {
    const m = /^([a-z_]+): ([\s\S]*)$/.exec(part);
    if (m && fields.includes(m[1])) say((current = m[1]), m[2]);
    else if (m) say((current = "form"), part);
    // A message may itself hold "; " (a sentence of two halves): its second half stays with it.
    else say(current, part);
  }
  for (const [field, texts] of Object.entries(said)) hp$(`${prefix}-${field}-error`).textContent = texts.join("; ");
  const first = Object.keys(said).find((f) => f !== "form");
  if (first) document.querySelector<HTMLElement>(`#${prefix}-form [name=${first}]`)?.setAttribute("aria-invalid", "true");
}

function hpClearFieldErrors(prefix: string, fields: readonly string[]): void {
  for (const f of [...fields, "form"]) hp$(`${prefix}-${f}-error`).textContent = "";
  for (const el of Array.from(document.querySelectorAll(`#${prefix}-form [aria-invalid]`))) el.removeAttribute("aria-invalid");
}

/** A field's error goes as soon as the field is changed: what is left on screen is still true. */
function hpClearOnEdit(prefix: string, fields: readonly string[]): void {
  hp$(`${prefix}-form`).addEventListener("input", (e) => {
    const field = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement ? e.target : null;
    if (!field || !fields.includes(field.name)) return;
    hp$(`${prefix}-${field.name}-error`).textContent = "";
    field.removeAttribute("aria-invalid");
  });
}

/** A time as the family reads it, in this browser's time zone; `never` for none. */
function hpWhen(iso: string | null | undefined, none = "never"): string {
  if (!iso) return none;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A key as `GET /admin/keys` lists it (never its secret). */
interface HpKey {
  id: number | null;
  name: string;
  kind: "api" | "device";
  role: string | null;
  device_type: string | null;
  sensor_id: string | null;
  created_at: string | null;
  created_by?: string;
  last_used_at: string | null;
  revoked: boolean;
  revoked_at?: string | null;
  source: "managed" | "settings";
}

/** A key as made or rotated: its secret, once. */
interface HpMadeKey extends HpKey {
  key: string;
}

/** Every key, for both sections (one call: the list is small). */
function hpKeys(): Promise<HpKey[]> {
  return hpApi<HpKey[]>("GET", "/admin/keys");
}

/** The state cell of a key's row, and its Rotate and Revoke buttons (revoke asks first). */
function hpKeyActions(k: HpKey, what: string, reload: () => Promise<void>, shown: (made: HpMadeKey) => void): { state: HTMLElement; actions: HTMLElement } {
  const state =
    k.source === "settings"
      ? hpEl("span", { class: "badge", "data-status": "settings", title: "Changed in the settings file, not here" }, "settings file")
      : k.revoked
        ? hpEl("span", { class: "badge", "data-status": "revoked" }, `revoked ${hpWhen(k.revoked_at ?? null, "")}`.trim())
        : hpEl("span", { class: "badge", "data-status": "active" }, "in use");
  const actions = hpEl("div", { class: "row-actions" });
  if (k.source !== "managed" || k.revoked || k.id === null) return { state, actions };
  const id = k.id;
  const rotate = hpEl("button", { type: "button", "data-action": "rotate" }, "Rotate");
  const revoke = hpEl("button", { type: "button", "data-action": "revoke", class: "danger" }, "Revoke");
  rotate.addEventListener("click", () =>
    hpTry("Could not rotate", async () => {
      const made = await hpApi<HpMadeKey>("POST", `/admin/keys/${id}/rotate`, {});
      shown(made);
      hpNotice(`"${k.name}" has a new key; the old one no longer works.`, "ok");
      await reload();
    }),
  );
  revoke.addEventListener("click", () => {
    actions.replaceChildren();
    const yes = hpEl("button", { type: "button", "data-action": "confirm-revoke", class: "danger" }, "Yes, revoke");
    const no = hpEl("button", { type: "button", "data-action": "keep" }, "Keep it");
    actions.append(hpEl("span", { class: "confirm" }, `Revoke "${k.name}"? ${what} stops working at once.`), yes, no);
    no.addEventListener("click", () => void hpTry("Could not load", reload));
    yes.addEventListener("click", () =>
      hpTry("Could not revoke", async () => {
        await hpApi<null>("DELETE", `/admin/keys/${id}`);
        hpNotice(`Revoked "${k.name}".`, "ok");
        await reload();
      }),
    );
    no.focus();
  });
  actions.append(rotate, revoke);
  return { state, actions };
}

/** What one key table shows: which keys, what an empty one says, the columns between the name and "made", and its buttons' words. */
interface HpKeyTable {
  id: string;
  keep: (k: HpKey) => boolean;
  empty: string;
  columns: number;
  cells: (k: HpKey) => HTMLElement[];
  what: string;
  reload: () => Promise<void>;
  shown: (made: HpMadeKey) => void;
}

/** Fills a key table: name, its own cells, made, last used, state and rotate / revoke, settings keys last. */
async function hpFillKeyTable(t: HpKeyTable): Promise<void> {
  const tbody = hp$(t.id).querySelector("tbody")!;
  const keys = (await hpKeys()).filter(t.keep);
  if (keys.length === 0) return hpEmptyRow(tbody, t.columns, t.empty);
  keys.sort(hpKeyOrder);
  tbody.replaceChildren(
    ...keys.map((k) => {
      const { state, actions } = hpKeyActions(k, t.what, t.reload, t.shown);
      const row = hpEl(
        "tr",
        { "data-key-name": k.name },
        hpEl("td", {}, k.name),
        ...t.cells(k),
        hpEl("td", {}, hpWhen(k.created_at, "—")),
        hpEl("td", {}, k.source === "settings" ? "not recorded" : hpWhen(k.last_used_at)),
        hpEl("td", {}, state),
        hpEl("td", {}, actions),
      );
      if (k.revoked) row.classList.add("revoked");
      return row;
    }),
  );
}

/** Keys made here and in use first (what the family acts on), then the settings file's, then the revoked. */
function hpKeyOrder(a: HpKey, b: HpKey): number {
  const rank = (k: HpKey) => (k.revoked ? 2 : k.source === "settings" ? 1 : 0);
  return rank(a) - rank(b);
}

/** A table body's one row saying there is nothing (or why). */
function hpEmptyRow(tbody: HTMLElement, columns: number, text: string): void {
  tbody.replaceChildren(hpEl("tr", { class: "empty" }, hpEl("td", { colspan: String(columns) }, text)));
}

type HpTab = "devices" | "people" | "chat" | "access" | "rooms" | "connections" | "health";
/** Tabs a caregiver key may read too (the others manage keys and links, an admin's; in Devices, the tablets connected now). */
const HP_READ_TABS: readonly HpTab[] = ["people", "rooms", "chat", "health", "devices"];
const hpTabLoaders: Partial<Record<HpTab, () => Promise<void>>> = {};

function hpShowTab(tab: HpTab): void {
  // A tab chosen leaves the guided set-up (an admin's offer on an empty household, hp-setup.ts).
  document.body.dataset.setup = "false";
  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>("#tabs button"))) b.setAttribute("aria-selected", String(b.dataset.tab === tab));
  for (const s of Array.from(document.querySelectorAll<HTMLElement>("section.tab"))) s.hidden = s.id !== `tab-${tab}`;
  hpNotice("");
  const load = hpTabLoaders[tab];
  if (load && (hpIsAdmin || HP_READ_TABS.includes(tab))) void hpTry("Could not load", load);
}

function hpSignOut(why = ""): void {
  hpKey = null;
  hpIsAdmin = false;
  sessionStorage.removeItem(HP_KEY_STORE);
  document.body.dataset.signedIn = "false";
  document.body.dataset.admin = "false";
  document.body.dataset.setup = "false";
  hpSetSetupByLink(false);
  hp$("who").textContent = "";
  hp$("sign-in-error").textContent = why;
  // A key shown once is not left on the screen for the next person.
  hp$("device-made").hidden = true;
  hp$("access-made").hidden = true;
  hpTabletForget();
  hp$<HTMLInputElement>("hub-token").value = "";
  hp$("chat-made").hidden = true;
}

async function hpSignIn(key: string): Promise<void> {
  hpKey = key;
  // The key must read the household: a device or web app key is told so here, not later.
  await hpApi<unknown>("GET", "/sensors");
  // Keys are the admin's: a caregiver reads the page and is told so in plain words.
  try {
    await hpKeys();
    hpIsAdmin = true;
  } catch (err) {
    if (!(err instanceof HpError && err.status === 403)) throw err;
    hpIsAdmin = false;
  }
  // Decided before the tabs show: a tab chosen at once is not taken back by this answer.
  const setup = hpIsAdmin && (await hpSetupWanted());
  sessionStorage.setItem(HP_KEY_STORE, key);
  document.body.dataset.signedIn = "true";
  document.body.dataset.admin = String(hpIsAdmin);
  hp$("who").textContent = hpIsAdmin ? "Signed in as an administrator" : "Signed in to read";
  hp$("sign-in-error").textContent = "";
  // A new household is set up step by step first (hp-setup.ts); the tabs come after.
  if (setup) hpSetupShow();
  else hpShowTab("devices");
}

function hpBoot(): void {
  hp$("sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const key = hp$<HTMLInputElement>("key").value.trim();
    hpSignIn(key).catch((err: Error) => {
      hpSignOut(err instanceof HpError && err.status === 403 ? "That key may not read the household: use a caregiver or admin key." : err.message);
    });
  });
  hp$("sign-out").addEventListener("click", () => hpSignOut());
  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>("#tabs button")))
    b.addEventListener("click", () => hpShowTab(b.dataset.tab as HpTab));
  hpDevicesInit();
  hpPeopleInit();
  hpChatInit();
  hpAccessInit();
  hpRoomsInit();
  hpConnectionsInit();
  hpHealthInit();
  hpSetupInit();
  // The one-time set-up link signs in as its admin key, for the set-up (hp-setup.ts).
  const setupToken = hpSetupTokenFromUrl();
  if (setupToken) {
    hpSetSetupByLink(true);
    hpSignIn(setupToken).catch((err: Error) => {
      hpSetSetupByLink(false);
      hpSignOut(
        err instanceof HpError && err.status === 401 ? "That set-up link no longer works: the set-up was finished. Sign in with the admin key." : err.message,
      );
    });
  } else if (hpKey) hpSignIn(hpKey).catch(() => hpSignOut());
}

document.addEventListener("DOMContentLoaded", hpBoot);
