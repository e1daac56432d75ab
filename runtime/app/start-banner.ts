/**
 * What `npm start` prints for a person: on the demo's first start its keys (printed once, they
 * are kept in the data dir), and at every start where the pages are (the editor, the Knowledge
 * page, the senior's tablet and its set-up link), so a restart never leaves someone guessing.
 */
import type { Settings } from "../../settings";
import { EDITOR_ROOT } from "../platform/nodered/host";
import { KNOWLEDGE_PAGE_ROOT } from "./knowledge-page/knowledge-page.router";
import { HOUSEHOLD_PAGE_ROOT } from "./household-page/household-page.router";
import { demoKeysFile } from "./demo/demo-keys";

/** `base` is this machine's address; `household` where the household's devices reach careflow. */
export interface BannerPlaces {
  base: string;
  household: string;
}

/** The demo's first start: its keys, the set-up link with the web app key in it. */
export function demoKeysBanner(settings: Settings, dataDir: string, at: BannerPlaces): string[] {
  const admin = settings.auth.api_keys.find((k) => k.name === "demo admin");
  const webapp = settings.auth.api_keys.find((k) => k.name === "demo web app");
  return [
    "",
    "careflow is serving a demo household.",
    ...(webapp ? [`  Web app:    ${at.household}/app/#key=${encodeURIComponent(webapp.key)}  (open once on the senior's tablet)`] : []),
    `  API:        curl -H "X-API-Key: ${admin?.key ?? "<admin key>"}" ${at.base}/api/v1/rooms`,
    "  Demo keys:",
    ...settings.auth.api_keys.filter((k) => k.name.startsWith("demo ")).map((k) => `    ${k.permissions.join(",").padEnd(13)} ${k.key}`),
    ...settings.auth.device_keys.filter((d) => d.name).map((d) => `    ${d.device_type.padEnd(13)} ${d.key}  (sensor ${d.sensor_id})`),
    `  They are kept in ${demoKeysFile(dataDir)}.`,
  ];
}

/**
 * Every start: the pages and the tablet's set-up link (it holds a key, so only where to get it
 * is printed; the demo's first start prints the link itself above).
 */
export function placesBanner(settings: Settings, at: BannerPlaces): string[] {
  const tablet = settings.auth.api_keys.some((k) => k.permissions.includes("webapp"))
    ? [
        `careflow: the tablet's set-up link points at ${at.household}; with an admin key, its QR code is at`,
        `  ${at.household}/api/v1/admin/webapp-link/qr.svg?api_key=<admin key>  (scan it with the tablet; docs/webapp.md)`,
        `  and the link itself: curl -H "X-API-Key: <admin key>" ${at.household}/api/v1/admin/webapp-link`,
      ]
    : [
        "careflow: the senior's tablet has no key in the settings yet, so it has no set-up link: add one with CAREFLOW_WEBAPP_KEY",
        '  or {"key": "...", "name": "tablet", "permissions": ["webapp"]} in auth.api_keys (docs/webapp.md),',
        `  or make its link on ${at.base}${HOUSEHOLD_PAGE_ROOT}/ (Devices, "Make a new tablet link": shown once)`,
      ];
  return [
    "",
    "careflow's pages:",
    `  Editor:          ${at.base}${EDITOR_ROOT}  (user: admin, password: an admin key; or caregiver and a caregiver key)`,
    `  Knowledge page:  ${at.base}${KNOWLEDGE_PAGE_ROOT}/  (a caregiver or admin key)`,
    `  Household page:  ${at.base}${HOUSEHOLD_PAGE_ROOT}/  (people, rooms, devices, family chat, keys and health; an admin key changes them)`,
    `  Senior's tablet: ${at.household}/app/  (opened once with its set-up link, below)`,
    ...tablet,
    "",
  ];
}

/** A household with nobody and no room yet: the one-time link that opens its guided set-up (issue 43 §3). */
export function setupLinkBanner(at: BannerPlaces, token: string): string[] {
  return [
    "careflow has no household yet. Set it up on the Household page (this link works until the set-up is finished):",
    `  ${at.base}${HOUSEHOLD_PAGE_ROOT}/?setup=${encodeURIComponent(token)}`,
    "",
  ];
}
