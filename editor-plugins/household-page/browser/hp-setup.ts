/**
 * The guided set-up of a new household (issue 43 §3, docs/household-page.md): shown instead of
 * the tabs when the page is opened with the one-time link `npm start` prints
 * (`/household/?setup=<token>`, a managed admin key) or by an admin while the household has
 * nobody and no room. Five steps, each skippable, each a client of the same `/api/v1` routes the
 * tabs use: the senior's name, the rooms (typed, or imported from the hub with the Rooms tab's
 * import), a relative for alerts (the Family chat's one-time code), the tablet's QR code, the
 * starter rules. Finishing with the link makes the family's own admin key (shown once), revokes
 * the link, and lands on the tabs.
 */

const HP_SETUP_KEY_NAME = "first-start set-up link";
const HP_SETUP_STEPS = ["senior", "rooms", "relatives", "tablet", "rules"] as const;
type HpSetupStep = (typeof HP_SETUP_STEPS)[number];

interface HpStarterRule {
  name: string;
  title: string;
  description: string;
  room: string;
}

/** Whether this sign-in came from the set-up link (its key is revoked when the set-up is finished); kept over a reload. */
const HP_SETUP_BY_LINK_STORE = "careflow.household.setup-link";
let hpSetupByLink = sessionStorage.getItem(HP_SETUP_BY_LINK_STORE) === "1";

function hpSetSetupByLink(on: boolean): void {
  hpSetupByLink = on;
  if (on) sessionStorage.setItem(HP_SETUP_BY_LINK_STORE, "1");
  else sessionStorage.removeItem(HP_SETUP_BY_LINK_STORE);
}
let hpSetupWatch: number | undefined;

/** The token of `?setup=`, taken off the address at once so it is not left in the history. */
function hpSetupTokenFromUrl(): string | null {
  const url = new URL(window.location.href);
  const token = url.searchParams.get("setup");
  if (!token) return null;
  url.searchParams.delete("setup");
  window.history.replaceState(null, "", url.pathname + url.search + url.hash);
  return token;
}

/** An admin on an empty household (nobody, no room) is offered the set-up too. */
async function hpSetupWanted(): Promise<boolean> {
  if (hpSetupByLink) return true;
  const [people, rooms] = await Promise.all([hpApi<unknown[]>("GET", "/persons"), hpApi<unknown[]>("GET", "/rooms")]);
  return people.length === 0 && rooms.length === 0;
}

function hpSetupShowStep(step: HpSetupStep): void {
  for (const s of HP_SETUP_STEPS) hp$(`setup-${s}`).hidden = s !== step;
  const n = HP_SETUP_STEPS.indexOf(step) + 1;
  hp$("setup-progress").textContent = `Step ${n} of ${HP_SETUP_STEPS.length}`;
  hpNotice("");
  hp$(`setup-${step}`).querySelector<HTMLElement>("h2")?.focus();
  const load: Partial<Record<HpSetupStep, () => Promise<void>>> = { rooms: hpSetupLoadRooms, tablet: hpSetupLoadTablet, rules: hpSetupLoadRules };
  const loader = load[step];
  if (loader) void hpTry("Could not load", loader);
}

function hpSetupNext(from: HpSetupStep): void {
  const i = HP_SETUP_STEPS.indexOf(from);
  if (i + 1 < HP_SETUP_STEPS.length) hpSetupShowStep(HP_SETUP_STEPS[i + 1]);
  else void hpTry("Could not finish the set-up", hpSetupFinish);
}

/** With the link the tabs wait until the set-up is finished; an admin's key may leave it for a tab. */
function hpSetupShow(): void {
  document.body.dataset.setup = "true";
  document.body.dataset.setupBy = hpSetupByLink ? "link" : "admin";
  hpSetupShowStep("senior");
}

/** The rooms so far, each with its sensors' count, so the family sees what the hub brought. */
async function hpSetupLoadRooms(): Promise<void> {
  const [rooms, sensors] = await Promise.all([hpApi<HpRoom[]>("GET", "/rooms"), hpApi<HpSensorRow[]>("GET", "/sensors")]);
  const list = hp$("setup-room-list");
  if (rooms.length === 0) list.replaceChildren(hpEl("li", { class: "muted" }, "No room yet."));
  else
    list.replaceChildren(
      ...rooms.map((r) => {
        const n = sensors.filter((s) => s.room_id === r.id).length;
        return hpEl("li", {}, `${r.name}${n ? ` (${n} sensor${n === 1 ? "" : "s"})` : ""}`);
      }),
    );
}

async function hpSetupAddRooms(): Promise<void> {
  const box = hp$<HTMLTextAreaElement>("setup-room-names");
  const names = box.value
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) await hpApi("POST", "/rooms", { name });
  box.value = "";
  await hpSetupLoadRooms();
}

/** The name of the tablet key the set-up makes (a second one, e.g. after a reload, gets the time too). */
const HP_SETUP_TABLET_NAME = "Senior's tablet";

/**
 * A settings file's web app key has a link to show; otherwise (a real household has none) the
 * step makes the tablet's key when asked, and shows its link this once (the Devices tab's
 * "Make a new tablet link").
 */
async function hpSetupLoadTablet(): Promise<void> {
  const box = hp$("setup-tablet-box");
  const show = (url: string, qrSvg: string, note: string) => {
    const { qr, link } = hpTabletLinkNodes(url, qrSvg);
    box.replaceChildren(qr, link, hpEl("p", { class: "muted" }, note));
  };
  try {
    const { links } = await hpApi<{ links: Array<{ key_name: string; url: string; qr_svg: string }> }>("GET", "/admin/webapp-link");
    const l = links[0];
    if (l) return show(l.url, l.qr_svg, "The Devices tab shows this link again.");
    const make = hpEl("button", { type: "button", id: "setup-tablet-make", class: "primary" }, "Make the tablet's link");
    const said = hpEl("p", { class: "field-error", role: "alert" });
    make.addEventListener("click", () => {
      said.textContent = "";
      hpMakeTabletKey(HP_SETUP_TABLET_NAME)
        .catch((err: unknown) =>
          err instanceof HpError && err.status === 409
            ? hpMakeTabletKey(`${HP_SETUP_TABLET_NAME} ${new Date().toISOString().slice(0, 16)}`)
            : Promise.reject(err),
        )
        .then((made) => {
          if (made.setup)
            show(made.setup.url, made.setup.qr_svg, "This link holds the tablet's key and is shown only this once; the Devices tab makes a new one.");
        })
        .catch((err: Error) => (said.textContent = err.message));
    });
    box.replaceChildren(hpEl("p", {}, "The tablet has no link yet."), make, said);
  } catch (err) {
    box.replaceChildren(hpEl("p", { class: "muted" }, `The tablet cannot be paired yet: ${err instanceof Error ? err.message : String(err)}`));
  }
}

async function hpSetupLoadRules(): Promise<void> {
  const rules = await hpApi<HpStarterRule[]>("GET", "/admin/starter-rules");
  hp$("setup-rule-choices").replaceChildren(
    ...rules.map((r) =>
      hpEl(
        "label",
        { class: "choice role" },
        hpEl("input", { type: "checkbox", name: "rules", value: r.name }),
        hpEl("span", { class: "role-name" }, r.title),
        hpEl("span", { class: "muted role-says" }, `${r.description} (uses a sensor in the ${r.room})`),
      ),
    ),
  );
}

/** A relative's one-time code, then the page waits for their chat as the Family chat tab does. */
async function hpSetupInviteRelative(name: string): Promise<void> {
  const before = new Set((await hpApi<HpRelative[]>("GET", "/chat/relatives")).map((r) => r.chat_id));
  const made = await hpApi<HpMadeCode>("POST", "/chat/link-codes", { name, alert_levels: [] });
  hp$("setup-code-message").textContent = made.message;
  const waiting = hp$("setup-code-waiting");
  waiting.textContent = `Waiting for ${made.name} to send it to the bot…`;
  waiting.dataset.colour = "";
  hp$("setup-code").hidden = false;
  window.clearInterval(hpSetupWatch);
  hpSetupWatch = window.setInterval(() => {
    if (hp$("setup-relatives").hidden || document.body.dataset.signedIn !== "true") return window.clearInterval(hpSetupWatch);
    void hpTry("Could not read the relatives", async () => {
      const joined = (await hpApi<HpRelative[]>("GET", "/chat/relatives")).find((r) => !before.has(r.chat_id) && r.name === made.name);
      if (!joined) return;
      window.clearInterval(hpSetupWatch);
      waiting.textContent = `${joined.name} has joined and gets the family's alerts.`;
      waiting.dataset.colour = "green";
    });
  }, HP_CHAT_WATCH_MS);
}

/**
 * Lands on the tabs. Signed in with the set-up link, the family first gets its own admin key
 * (shown once: the link stops working now), then the link is revoked and the page signs in with
 * the new key.
 */
async function hpSetupFinish(): Promise<void> {
  window.clearInterval(hpSetupWatch);
  if (hpSetupByLink) {
    const keys = await hpKeys();
    const made = await hpApi<HpMadeKey>("POST", "/admin/keys", {
      name: `household admin ${new Date().toISOString().slice(0, 16)}`,
      kind: "api",
      role: "admin",
    });
    for (const k of keys.filter((x) => x.name === HP_SETUP_KEY_NAME && !x.revoked && x.id !== null)) await hpApi<null>("DELETE", `/admin/keys/${k.id}`);
    hpSetSetupByLink(false);
    await hpSignIn(made.key);
    hp$("setup-admin-key").textContent = made.key;
    hp$("setup-done").hidden = false;
  }
  document.body.dataset.setup = "false";
  hpShowTab("people");
  hpNotice("The household is set up.", "ok");
}

function hpSetupInit(): void {
  for (const step of HP_SETUP_STEPS) {
    hp$(`setup-${step}`)
      .querySelector<HTMLButtonElement>("button.skip")
      ?.addEventListener("click", () => hpSetupNext(step));
  }
  hp$("setup-finish-now").addEventListener("click", () => void hpTry("Could not finish the set-up", hpSetupFinish));
  hp$("setup-done-close").addEventListener("click", () => (hp$("setup-done").hidden = true));
  hp$<HTMLFormElement>("setup-senior-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = hp$<HTMLInputElement>("setup-senior-name").value.trim();
    hpClearFieldErrors("setup-senior", ["display_name"]);
    hpApi("POST", "/persons", { display_name: name })
      .then(() => hpSetupNext("senior"))
      .catch((err: Error) => hpShowFieldErrors("setup-senior", ["display_name"], err.message));
  });
  hp$<HTMLFormElement>("setup-rooms-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void hpTry("Could not add the rooms", hpSetupAddRooms);
  });
  hpImportButton(hp$<HTMLButtonElement>("setup-import"), hp$("setup-import-said"), hpSetupLoadRooms);
  hp$("setup-rooms-next").addEventListener("click", () => hpSetupNext("rooms"));
  hp$<HTMLFormElement>("setup-relative-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = hp$<HTMLInputElement>("setup-relative-name").value.trim();
    hpClearFieldErrors("setup-relative", ["name"]);
    hpSetupInviteRelative(name).catch((err: Error) => hpShowFieldErrors("setup-relative", ["name"], err.message));
  });
  hp$("setup-relatives-next").addEventListener("click", () => hpSetupNext("relatives"));
  hp$("setup-tablet-next").addEventListener("click", () => hpSetupNext("tablet"));
  hp$<HTMLFormElement>("setup-rules-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const rules = new FormData(e.target as HTMLFormElement).getAll("rules").map(String);
    hp$("setup-rules-said").textContent = "";
    if (rules.length === 0) return hpSetupNext("rules");
    hpApi<{ rules: Array<{ rule_name: string }> }>("POST", "/admin/starter-rules", { rules })
      .then((made) => {
        hpNotice(`Rules made: ${made.rules.map((r) => r.rule_name).join(", ")}.`, "ok");
        return hpSetupFinish();
      })
      .catch((err: Error) => (hp$("setup-rules-said").textContent = err.message));
  });
}
