/**
 * The Household page's Health tab (issue 44 §1): every part careflow watches in itself, from
 * `GET /api/v1/admin/health/parts` (caregivers may read it), as green, amber or red with what it
 * last said, read again every 30 s while the tab is open, so a quiet camera is not a quiet page.
 * Its Backups section is hp-backups.ts.
 */

interface HpPart {
  id: string;
  kind: string;
  name: string;
  state: "ok" | "late" | "silent" | "down";
  since: string;
  last_seen: string | null;
  detail?: string;
}

/** Each state in the family's words, and its colour. */
const HP_STATES: Record<HpPart["state"], { word: string; colour: "green" | "amber" | "red" }> = {
  ok: { word: "Fine", colour: "green" },
  late: { word: "Late", colour: "amber" },
  silent: { word: "Silent", colour: "red" },
  down: { word: "Down", colour: "red" },
};
/** The worst first: what needs a look is at the top. */
const HP_STATE_ORDER: Record<HpPart["state"], number> = { down: 0, silent: 1, late: 2, ok: 3 };
const HP_HEALTH_EVERY_MS = 30_000;

let hpHealthTimer: number | undefined;

async function hpLoadHealth(): Promise<void> {
  const { parts } = await hpApi<{ parts: HpPart[] }>("GET", "/admin/health/parts");
  const tbody = hp$("parts").querySelector("tbody")!;
  const needLook = parts.filter((p) => p.state !== "ok").length;
  hp$("health-summary").textContent =
    parts.length === 0
      ? "No parts are watched yet."
      : needLook === 0
        ? `All ${parts.length} parts are fine.`
        : `${needLook} of ${parts.length} parts need a look.`;
  hp$("health-summary").dataset.colour = needLook === 0 ? "green" : parts.some((p) => HP_STATES[p.state]?.colour === "red") ? "red" : "amber";
  if (parts.length === 0) return hpEmptyRow(tbody, 5, "Nothing to show.");
  const sorted = [...parts].sort((a, b) => HP_STATE_ORDER[a.state] - HP_STATE_ORDER[b.state] || a.name.localeCompare(b.name));
  tbody.replaceChildren(
    ...sorted.map((p) => {
      const s = HP_STATES[p.state] ?? { word: p.state, colour: "amber" };
      return hpEl(
        "tr",
        { "data-part": p.id, "data-state": p.state },
        hpEl("td", { class: "nowrap" }, hpEl("span", { class: "dot", "data-colour": s.colour, "aria-hidden": "true" }), ` ${s.word}`),
        hpEl("td", {}, p.name),
        hpEl("td", { class: "nowrap" }, hpWhen(p.since)),
        hpEl("td", { class: "nowrap" }, hpWhen(p.last_seen)),
        hpEl("td", {}, p.detail ?? ""),
      );
    }),
  );
}

function hpHealthInit(): void {
  hpTabLoaders.health = async () => {
    window.clearInterval(hpHealthTimer);
    // The backups first: reading them brings the board's Backups part up to date too.
    await hpLoadBackups();
    await hpLoadHealth();
    // Read again while the tab is shown; another tab or signing out stops it.
    hpHealthTimer = window.setInterval(() => {
      if (hp$("tab-health").hidden || document.body.dataset.signedIn !== "true") return window.clearInterval(hpHealthTimer);
      void hpLoadBackups().then(() => hpTry("Could not read the parts", hpLoadHealth));
    }, HP_HEALTH_EVERY_MS);
  };
  hp$("health-refresh").addEventListener("click", () => void hpLoadBackups().then(() => hpTry("Could not read the parts", hpLoadHealth)));
  hpBackupsInit();
}
