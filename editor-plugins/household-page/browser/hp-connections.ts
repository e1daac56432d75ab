/**
 * The Household page's Connections tab (issue 43 §1): the home hub and the tracking service.
 *
 * The hub: its address and token, "Test connection" saying what careflow finds there (entities
 * by domain, areas), then "Save and connect", which careflow uses at once (no restart), then the
 * import of its rooms and sensors. The token is typed once: after saving it is never shown, and
 * the field stays empty (left empty, the token in use is kept and tried).
 *
 * The tracking service: its broker's address tested (careflow's streams found there), and the
 * lines of the settings file that switch tracking on with it (docs/decisions.md, "The tracking
 * service is tested in the browser, set in the settings file").
 */

interface HpHubView {
  url: string | null;
  token_set: boolean;
  source: "settings" | "saved" | "none";
  connected: boolean;
  entities: number;
  saved_at: string | null;
  saved_by: string | null;
}

type HpHubFound =
  | { ok: true; version: string | null; entities: number; by_domain: Record<string, number>; areas: string[] }
  | { ok: false; field: "url" | "token"; message: string };

interface HpTrackingView {
  enabled: boolean;
  nats_url: string;
  state: string;
  connected_since: string | null;
  last_error: string | null;
  streams: string[];
}

type HpTrackingFound = (
  { ok: true; server: string; streams_found: string[]; streams_missing: string[]; streams_total: number } | { ok: false; field: "nats_url"; message: string }
) & { settings: unknown };

const HP_HUB_FIELDS = ["url", "token"] as const;
const HP_TRACKING_FIELDS = ["nats_url"] as const;

/** `12 sensors, 4 lights and 1 switch`: the hub's domains as the family reads them, the most first. */
function hpSayDomains(byDomain: Record<string, number>): string {
  const plural = (word: string) => (/(s|x|ch|sh)$/.test(word) ? `${word}es` : `${word}s`);
  const parts = Object.entries(byDomain).map(([d, n]) => {
    const word = d.replace(/_/g, " ");
    return `${n} ${n === 1 ? word : plural(word)}`;
  });
  if (parts.length <= 1) return parts.join("");
  const shown = parts.slice(0, 8);
  const more = parts.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more kinds` : `${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1]}`;
}

function hpSayHubFound(f: Extract<HpHubFound, { ok: true }>): string {
  const areas = f.areas.length === 0 ? "no areas" : `${f.areas.length} area${f.areas.length === 1 ? "" : "s"} (${f.areas.join(", ")})`;
  return `Found the hub${f.version ? ` (version ${f.version})` : ""}: ${f.entities} entities (${hpSayDomains(f.by_domain)}) and ${areas}.`;
}

async function hpLoadHub(): Promise<void> {
  const v = await hpApi<HpHubView>("GET", "/admin/connections/hub");
  const status = hp$("hub-status");
  status.dataset.colour = v.connected ? "green" : v.url ? "red" : "amber";
  status.textContent = !v.url
    ? "The hub is not set up yet."
    : v.connected
      ? `Connected to ${v.url}: ${v.entities} entities.`
      : `Not connected to ${v.url} right now.`;
  hp$("hub-source").textContent =
    v.source === "saved"
      ? `Set on this page${v.saved_by ? ` by ${v.saved_by}` : ""}${v.saved_at ? `, ${hpWhen(v.saved_at)}` : ""}.`
      : v.source === "settings"
        ? "Set in the settings file. Saving here replaces it."
        : "";
  const url = hp$<HTMLInputElement>("hub-url");
  if (!url.value && v.url) url.value = v.url;
  const token = hp$<HTMLInputElement>("hub-token");
  token.value = "";
  token.placeholder = v.token_set ? "A token is saved (never shown). Type a new one to change it." : "The hub's long-lived access token";
  hp$("hub-import").hidden = !v.url;
}

/** The form's address, and its token when one is typed (left out: the saved one is kept and tried). */
function hpHubBody(): { url: string; token?: string } {
  const url = hp$<HTMLInputElement>("hub-url").value;
  const token = hp$<HTMLInputElement>("hub-token").value;
  return token ? { url, token } : { url };
}

function hpShowHubFound(found: HpHubFound): void {
  const said = hp$("hub-found");
  if (found.ok) {
    said.textContent = hpSayHubFound(found);
    said.className = "found ok";
  } else {
    said.textContent = "";
    said.className = "found";
    hpShowFieldErrors("hub", HP_HUB_FIELDS, `${found.field}: ${found.message}`);
  }
}

async function hpLoadTracking(): Promise<void> {
  const v = await hpApi<HpTrackingView>("GET", "/admin/connections/tracking");
  const status = hp$("tracking-status");
  status.dataset.colour = !v.enabled ? "amber" : v.state === "connected" ? "green" : "red";
  status.textContent = !v.enabled
    ? "Tracking is switched off."
    : v.state === "connected"
      ? `Connected to ${v.nats_url} since ${hpWhen(v.connected_since)}.`
      : v.state === "standby"
        ? `Another careflow instance reads the tracking streams from ${v.nats_url}.`
        : `Not connected to ${v.nats_url}: ${v.last_error ?? v.state}.`;
  const url = hp$<HTMLInputElement>("tracking-url");
  // A hidden password in the address is not put back into the field.
  if (!url.value && v.nats_url && !v.nats_url.includes("***")) url.value = v.nats_url;
}

function hpShowTrackingFound(found: HpTrackingFound): void {
  const said = hp$("tracking-found");
  const how = hp$("tracking-how");
  how.hidden = true;
  if (!found.ok) {
    said.textContent = "";
    said.className = "found";
    hpShowFieldErrors("tracking", HP_TRACKING_FIELDS, `${found.field}: ${found.message}`);
    return;
  }
  const all = found.streams_found.length + found.streams_missing.length;
  said.textContent =
    `Found the broker (${found.server}): ` +
    (found.streams_found.length === all
      ? `all ${all} of careflow's tracking streams are there.`
      : found.streams_found.length === 0
        ? `none of careflow's ${all} tracking streams yet (careflow makes them when tracking is switched on).`
        : `${found.streams_found.length} of careflow's ${all} tracking streams are there (the others are made when tracking is switched on).`);
  said.className = "found ok";
  hp$("tracking-settings").textContent = JSON.stringify(found.settings, null, 2);
  how.hidden = false;
}

function hpConnectionsInit(): void {
  hpTabLoaders.connections = async () => {
    await hpLoadHub();
    await hpLoadTracking();
  };
  const hubForm = hp$<HTMLFormElement>("hub-form");
  hpClearOnEdit("hub", HP_HUB_FIELDS);
  const busy = (on: boolean) => {
    for (const b of Array.from(hubForm.querySelectorAll("button"))) b.disabled = on;
  };
  hp$("hub-test").addEventListener("click", () => {
    hpClearFieldErrors("hub", HP_HUB_FIELDS);
    hp$("hub-found").textContent = "Testing…";
    busy(true);
    hpApi<HpHubFound>("POST", "/admin/connections/hub/test", hpHubBody())
      .then(hpShowHubFound)
      .catch((err: Error) => {
        hp$("hub-found").textContent = "";
        hpShowFieldErrors("hub", HP_HUB_FIELDS, err.message);
      })
      .finally(() => busy(false));
  });
  hubForm.addEventListener("submit", (e) => {
    e.preventDefault();
    hpClearFieldErrors("hub", HP_HUB_FIELDS);
    hp$("hub-found").textContent = "Testing and saving…";
    busy(true);
    hpApi<HpHubView & { found: HpHubFound }>("PUT", "/admin/connections/hub", hpHubBody())
      .then(async (saved) => {
        hpShowHubFound(saved.found);
        hpNotice("Saved: careflow uses this hub now.", "ok");
        // The token leaves the page: it is never shown again.
        hp$<HTMLInputElement>("hub-token").value = "";
        await hpLoadHub();
        hp$("hub-import-button").focus();
      })
      .catch((err: Error) => {
        hp$("hub-found").textContent = "";
        hpShowFieldErrors("hub", HP_HUB_FIELDS, err.message);
      })
      .finally(() => busy(false));
  });
  hpImportButton(hp$<HTMLButtonElement>("hub-import-button"), hp$("hub-import-result"), hpLoadHub);

  const trackingForm = hp$<HTMLFormElement>("tracking-form");
  hpClearOnEdit("tracking", HP_TRACKING_FIELDS);
  trackingForm.addEventListener("submit", (e) => {
    e.preventDefault();
    hpClearFieldErrors("tracking", HP_TRACKING_FIELDS);
    hp$("tracking-found").textContent = "Testing…";
    hpApi<HpTrackingFound>("POST", "/admin/connections/tracking/test", { nats_url: hp$<HTMLInputElement>("tracking-url").value })
      .then(hpShowTrackingFound)
      .catch((err: Error) => {
        hp$("tracking-found").textContent = "";
        hpShowFieldErrors("tracking", HP_TRACKING_FIELDS, err.message);
      });
  });
}
