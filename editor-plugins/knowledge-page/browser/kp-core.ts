/**
 * The caregiver's Knowledge page (`/knowledge/`, docs/knowledge-page.md): the shell. The
 * page's scripts are plain global scripts loaded in order (kp-core, kp-documents, kp-drafts,
 * kp-library), their names prefixed `kp`; this one holds the key, the REST calls, the tabs
 * and the notices, and starts the rest once the page is parsed.
 *
 * The key is the caregiver's (or admin's) API key, typed once and kept in sessionStorage:
 * the page calls the same `/api/v1` a script would, with the same role checks, and the tab
 * forgets the key when it closes.
 */

const KP_KEY_STORE = "careflow.knowledge.key";

let kpKey: string | null = sessionStorage.getItem(KP_KEY_STORE);

/** A REST error said in the server's words (`{"detail"}`). */
class KpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function kp$<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** Makes an element with text and attributes (never innerHTML: every text is the family's). */
function kpEl<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c);
  return el;
}

async function kpApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { "X-API-Key": kpKey ?? "" };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
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
    // A part not set up (no language model) is said in the family's words, never its settings path.
    const notSetUp = parsed && typeof parsed === "object" ? (parsed as { not_set_up?: { message?: unknown } }).not_set_up : undefined;
    const detail =
      notSetUp && typeof notSetUp.message === "string"
        ? notSetUp.message
        : parsed && typeof parsed === "object" && typeof (parsed as { detail?: unknown }).detail === "string"
          ? (parsed as { detail: string }).detail
          : `${res.status} ${res.statusText}`;
    if (res.status === 401) kpSignOut(detail);
    throw new KpError(res.status, detail);
  }
  return parsed as T;
}

/** A list answer, whether the route answers a bare array or `{items}`. */
function kpItems<T>(answer: unknown): T[] {
  if (Array.isArray(answer)) return answer as T[];
  if (answer && typeof answer === "object") {
    for (const k of ["items", "documents", "cards", "quizzes", "chunks", "layouts", "results"]) {
      const v = (answer as Record<string, unknown>)[k];
      if (Array.isArray(v)) return v as T[];
    }
  }
  return [];
}

function kpNotice(text: string, kind: "ok" | "error" | "" = ""): void {
  const n = kp$("notice");
  n.textContent = text;
  n.className = kind;
}

/** Runs an action, saying its error in the notice line instead of failing silently. */
async function kpTry(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    kpNotice(`${what}: ${err instanceof Error ? err.message : String(err)}`, "error");
  }
}

function kpBadge(status: string): HTMLElement {
  return kpEl("span", { class: "badge", "data-status": status }, status.replace(/_/g, " "));
}

function kpTags(tags: unknown): string {
  return Array.isArray(tags) && tags.length ? `Tags: ${tags.join(", ")}` : "";
}

type KpTab = "documents" | "cards" | "quizzes" | "ask";
const kpTabLoaders: Partial<Record<KpTab, () => Promise<void>>> = {};

function kpShowTab(tab: KpTab): void {
  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>("#tabs button"))) b.setAttribute("aria-selected", String(b.dataset.tab === tab));
  for (const s of Array.from(document.querySelectorAll<HTMLElement>("section.tab"))) s.hidden = s.id !== `tab-${tab}`;
  kpNotice("");
  const load = kpTabLoaders[tab];
  if (load) void kpTry("Could not load", load);
}

function kpSignOut(why = ""): void {
  kpKey = null;
  sessionStorage.removeItem(KP_KEY_STORE);
  document.body.dataset.signedIn = "false";
  kp$("sign-in-error").textContent = why;
}

async function kpSignIn(key: string): Promise<void> {
  kpKey = key;
  // The key must reach the repository: a device or web app key is told so here, not later.
  await kpApi<unknown>("GET", "/knowledge/layouts");
  sessionStorage.setItem(KP_KEY_STORE, key);
  document.body.dataset.signedIn = "true";
  kp$("sign-in-error").textContent = "";
  kpShowTab("documents");
}

function kpBoot(): void {
  kp$("sign-in-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const key = kp$<HTMLInputElement>("key").value.trim();
    kpSignIn(key).catch((err: Error) => {
      kpSignOut(err instanceof KpError && err.status === 403 ? "That key may not read the knowledge repository: use a caregiver or admin key." : err.message);
    });
  });
  kp$("sign-out").addEventListener("click", () => kpSignOut());
  for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>("#tabs button")))
    b.addEventListener("click", () => kpShowTab(b.dataset.tab as KpTab));
  kpDocumentsInit();
  kpDraftsInit();
  kpLibraryInit();
  if (kpKey) kpSignIn(kpKey).catch(() => kpSignOut());
}

document.addEventListener("DOMContentLoaded", kpBoot);
