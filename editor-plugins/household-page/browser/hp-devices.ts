/**
 * The Household page's Devices tab: add a camera, an e-ink display or a bedside terminal (its
 * sensor picked from the household's sensors of the matching type, `GET /api/v1/sensors`), which
 * makes its device key (`POST /api/v1/admin/keys`, kind "device"); the key is shown once with
 * a QR code and the address and message the device is set up with (the answer's `setup`); then
 * the device keys with their last use, Rotate and Revoke.
 *
 * Its section "The senior's tablet": the link the tablet opens once and its QR code (a settings
 * file's web app key, or a key just made here with "Make a new tablet link": `POST
 * /api/v1/admin/keys` with role `webapp`, whose answer's `setup` holds the link, shown once as
 * the key is kept as a digest), the tablet keys with Rotate (a new link) and Revoke, and the
 * tablets connected now (`GET /api/v1/admin/webapp/tablets`), which a caregiver reads too.
 */

/** The words for each device type, and the sensor type its key needs (as `sensorTypeForDevice` on the server, which checks it). */
const HP_DEVICE_TYPES: Record<string, { label: string; sensorType: "camera" | "eink"; article: string }> = {
  camera_device: { label: "Camera", sensorType: "camera", article: "a camera" },
  display: { label: "E-ink display", sensorType: "eink", article: "an e-ink display" },
  terminal: { label: "Bedside terminal", sensorType: "eink", article: "a bedside terminal" },
};

const HP_DEVICE_FIELDS = ["device_type", "sensor_id", "name"] as const;

interface HpSensor {
  sensor_id: string;
  name: string;
  sensor_type: string;
  room_name: string | null;
}

/** What the device is set up with (runtime/app/keys/device-setup.ts). */
interface HpDeviceSetup {
  method: string;
  url: string;
  url_with_key: string;
  body: Record<string, unknown> | null;
  how: string;
  qr_svg: string;
}

let hpSensors: HpSensor[] = [];

function hpDeviceType(): string {
  return document.querySelector<HTMLInputElement>("#device-form [name=device_type]:checked")?.value ?? "camera_device";
}

/** The sensor picker offers the sensors of the chosen device's type. */
function hpFillSensors(): void {
  const type = HP_DEVICE_TYPES[hpDeviceType()];
  const select = hp$<HTMLSelectElement>("device-sensor");
  const matching = hpSensors.filter((s) => s.sensor_type === type.sensorType);
  select.replaceChildren(
    ...matching.map((s) => {
      // A sensor made from a settings key is named by its id: said once.
      const also = [s.name !== s.sensor_id ? s.sensor_id : "", s.room_name ?? ""].filter(Boolean).join(", ");
      return hpEl("option", { value: s.sensor_id }, also ? `${s.name} (${also})` : s.name);
    }),
  );
  select.disabled = matching.length === 0;
  hp$("device-sensor-hint").textContent =
    matching.length === 0
      ? `The household has no ${type.sensorType === "camera" ? "camera" : "e-ink"} sensor yet for ${type.article}: add the sensor first, then its key.`
      : `${type.label}s use a sensor of type "${type.sensorType}".`;
}

function hpShowDeviceMade(made: HpMadeKey & { setup?: HpDeviceSetup }): void {
  const type = HP_DEVICE_TYPES[made.device_type ?? ""]?.label ?? "Device";
  hp$("device-made-title").textContent = `${type} "${made.name}" (sensor ${made.sensor_id ?? "?"})`;
  hp$("device-made-key").textContent = made.key;
  const setup = made.setup;
  hp$("device-made-method").textContent = setup?.method ?? "";
  hp$("device-made-url").textContent = setup?.url ?? "";
  hp$("device-made-url-with-key").textContent = setup?.url_with_key ?? "";
  hp$("device-made-body-box").hidden = !setup?.body;
  hp$("device-made-body").textContent = setup?.body ? JSON.stringify(setup.body) : "";
  hp$("device-made-how").textContent = setup?.how ?? "";
  const qr = hp$<HTMLImageElement>("device-made-qr");
  // The SVG as a data: image (the page's policy allows no other), never put into the page as markup.
  if (setup) qr.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`;
  else qr.removeAttribute("src");
  qr.alt = setup ? `QR code of ${setup.url} with the key of "${made.name}"` : "";
  hp$("device-made").hidden = false;
  hp$("device-made").scrollIntoView({ block: "nearest" });
}

async function hpLoadDeviceKeys(): Promise<void> {
  await hpFillKeyTable({
    id: "device-keys",
    keep: (k) => k.kind === "device",
    empty: "No device keys yet.",
    columns: 7,
    cells: (k) => [hpEl("td", {}, HP_DEVICE_TYPES[k.device_type ?? ""]?.label ?? k.device_type ?? ""), hpEl("td", { class: "mono" }, k.sensor_id ?? "")],
    what: "Its device",
    reload: hpLoadDeviceKeys,
    shown: hpShowDeviceMade,
  });
}

/** What a new or rotated web app key's tablet opens (runtime/app/ops/webapp-link.ts `webappSetup`). */
interface HpTabletSetup {
  url: string;
  qr_svg: string;
  how: string;
}

type HpMadeTablet = HpMadeKey & { setup?: HpTabletSetup };

interface HpConnectedTablet {
  key_name: string;
  key_id: number | null;
  tablet_id: string | null;
  connected_at: string;
  last_seen_at: string;
}

const HP_TABLET_FIELDS = ["name"] as const;
/** The connected list is read again this often while the Devices tab is shown. */
const HP_TABLETS_EVERY_MS = 5000;
let hpTabletsTimer: number | undefined;

/** A web app key for the senior's tablet, with its link (shown once: the key is kept as a digest). */
function hpMakeTabletKey(name: string): Promise<HpMadeTablet> {
  return hpApi<HpMadeTablet>("POST", "/admin/keys", { name, kind: "api", role: "webapp" });
}

/** The QR code and the link as page elements (the SVG as a data: image, never as markup). */
function hpTabletLinkNodes(url: string, qrSvg: string): { qr: HTMLImageElement; link: HTMLElement } {
  const qr = hpEl("img", { src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(qrSvg)}`, alt: `QR code of the tablet's link ${url}`, class: "qr" });
  return { qr, link: hpEl("p", { class: "mono", "data-tablet-link": "" }, url) };
}

/** Shows a tablet's link and QR code; `once`: a key just made or rotated, whose link is not shown again. */
function hpShowTabletLink(title: string, url: string, qrSvg: string, once: boolean): void {
  const { qr, link } = hpTabletLinkNodes(url, qrSvg);
  hp$("tablet-link-title").textContent = title;
  hp$("tablet-link-url").replaceChildren(link);
  hp$("tablet-link-qr").replaceChildren(qr);
  hp$("tablet-link-once").hidden = !once;
  hp$("tablet-link-done").hidden = !once;
  hp$("tablet-link-none").textContent = "";
  hp$("tablet-link").hidden = false;
}

function hpShowTabletMade(made: HpMadeTablet): void {
  if (!made.setup) return;
  hpShowTabletLink(`The link of "${made.name}"`, made.setup.url, made.setup.qr_svg, true);
  hp$("tablet-link").scrollIntoView({ block: "nearest" });
}

/** The link and QR code leave the page (a key shown once is not left for the next person). */
function hpTabletForget(): void {
  hp$("tablet-link-url").replaceChildren();
  hp$("tablet-link-qr").replaceChildren();
  hp$("tablet-link").hidden = true;
}

/** A settings file's web app key has a link that can be shown again; keys made here had theirs shown once. */
async function hpLoadTabletLink(): Promise<void> {
  // A link just made stays until "Done".
  if (!hp$("tablet-link").hidden && !hp$("tablet-link-once").hidden) return;
  const { links, made_here } = await hpApi<{ links: Array<{ key_name: string; url: string; qr_svg: string }>; made_here: Array<{ key_name: string }> }>(
    "GET",
    "/admin/webapp-link",
  );
  const l = links[0];
  if (l) return hpShowTabletLink(`The link of "${l.key_name}" (from the settings file)`, l.url, l.qr_svg, false);
  hpTabletForget();
  hp$("tablet-link-none").textContent = made_here.length
    ? `The link of ${made_here.map((k) => `"${k.key_name}"`).join(", ")} was shown once, when it was made. To pair a tablet, make a new tablet link, or rotate its key below.`
    : "The tablet has no link yet: make one.";
}

async function hpLoadTabletKeys(): Promise<void> {
  await hpFillKeyTable({
    id: "tablet-keys",
    keep: (k) => k.kind === "api" && k.role === "webapp",
    empty: "No tablet keys yet.",
    columns: 5,
    cells: () => [],
    what: "The tablet",
    reload: hpReloadTablet,
    shown: hpShowTabletMade,
  });
}

async function hpLoadTablets(): Promise<void> {
  const { tablets } = await hpApi<{ tablets: HpConnectedTablet[] }>("GET", "/admin/webapp/tablets");
  const tbody = hp$("tablets").querySelector("tbody")!;
  // Said once (the table's own row says there are none).
  hp$("tablets-said").textContent = tablets.length === 0 ? "" : `${tablets.length} connected now.`;
  if (tablets.length === 0) return hpEmptyRow(tbody, 4, "No tablet is connected now.");
  tbody.replaceChildren(
    ...tablets.map((t) =>
      hpEl(
        "tr",
        { "data-key-name": t.key_name },
        hpEl("td", {}, t.key_name),
        // The screen's own id, shortened: it tells apart two tablets that share a key.
        hpEl("td", { class: "mono", title: t.tablet_id ?? "" }, t.tablet_id ? `…${t.tablet_id.slice(-6)}` : "—"),
        hpEl("td", { class: "nowrap" }, hpWhen(t.connected_at)),
        hpEl("td", { class: "nowrap" }, hpWhen(t.last_seen_at)),
      ),
    ),
  );
}

async function hpReloadTablet(): Promise<void> {
  if (hpIsAdmin) await Promise.all([hpLoadTabletLink(), hpLoadTabletKeys()]);
  await hpLoadTablets();
}

async function hpLoadDevices(): Promise<void> {
  window.clearInterval(hpTabletsTimer);
  // A caregiver reads the tablets connected now; the rest of the tab is the admin's.
  if (hpIsAdmin) {
    hpSensors = await hpApi<HpSensor[]>("GET", "/sensors");
    hpFillSensors();
    await hpLoadDeviceKeys();
  }
  await hpReloadTablet();
  // Read again while the tab is shown, so a tablet coming or going is seen; another tab or signing out stops it.
  hpTabletsTimer = window.setInterval(() => {
    if (hp$("tab-devices").hidden || document.body.dataset.signedIn !== "true") return window.clearInterval(hpTabletsTimer);
    void hpTry("Could not read the tablets", hpLoadTablets);
  }, HP_TABLETS_EVERY_MS);
}

function hpTabletInit(): void {
  const form = hp$<HTMLFormElement>("tablet-form");
  hpClearOnEdit("tablet", HP_TABLET_FIELDS);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = String(new FormData(form).get("name") ?? "");
    hpClearFieldErrors("tablet", HP_TABLET_FIELDS);
    hpMakeTabletKey(name)
      .then(async (made) => {
        form.reset();
        hpShowTabletMade(made);
        hpNotice(`Made the link of "${made.name}".`, "ok");
        await hpLoadTabletKeys();
      })
      .catch((err: Error) => hpShowFieldErrors("tablet", HP_TABLET_FIELDS, err.message));
  });
  hp$("tablet-link-done").addEventListener("click", () => {
    hpTabletForget();
    void hpTry("Could not load", hpLoadTabletLink);
  });
  hp$("tablets-refresh").addEventListener("click", () => void hpTry("Could not read the tablets", hpLoadTablets));
}

function hpDevicesInit(): void {
  hpTabLoaders.devices = hpLoadDevices;
  hpTabletInit();
  const form = hp$<HTMLFormElement>("device-form");
  for (const radio of Array.from(form.querySelectorAll<HTMLInputElement>("[name=device_type]"))) radio.addEventListener("change", hpFillSensors);
  hpClearOnEdit("device", HP_DEVICE_FIELDS);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const body = {
      name: String(data.get("name") ?? ""),
      kind: "device",
      device_type: hpDeviceType(),
      // An empty picker (no sensor of the type) is sent as nothing: the API says what is missing.
      ...(data.get("sensor_id") ? { sensor_id: String(data.get("sensor_id")) } : {}),
    };
    hpClearFieldErrors("device", HP_DEVICE_FIELDS);
    hpApi<HpMadeKey & { setup?: HpDeviceSetup }>("POST", "/admin/keys", body)
      .then(async (made) => {
        form.reset();
        hpFillSensors();
        hpShowDeviceMade(made);
        hpNotice(`Made the key of "${made.name}".`, "ok");
        await hpLoadDeviceKeys();
      })
      .catch((err: Error) => hpShowFieldErrors("device", HP_DEVICE_FIELDS, err.message));
  });
  hp$("device-made-done").addEventListener("click", () => {
    // The key leaves the screen (and the page) once the device has it.
    hp$("device-made-key").textContent = "";
    hp$("device-made-url-with-key").textContent = "";
    hp$("device-made-body").textContent = "";
    hp$<HTMLImageElement>("device-made-qr").removeAttribute("src");
    hp$("device-made").hidden = true;
  });
}
