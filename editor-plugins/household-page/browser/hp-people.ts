/**
 * The Household page's People tab (issue 43 §1): the household's members with who they are (the
 * spec's alert profile presets: Senior, Adult, Presence only, or Custom), whether careflow knows
 * their face, and where they are now. An admin adds and edits a member (`POST|PATCH /persons`)
 * and enrolls their face from 5–10 photos, chosen or taken with this device's camera
 * (`POST /persons/{id}/enroll`), each photo shown with what the API said of it; a caregiver
 * reads the same (the spec's caregiver role is `GET` only).
 */

interface HpAlertConfig {
  enabled_kinds: string[];
  min_severity: string;
}

interface HpPerson {
  person_id: string;
  display_name: string;
  notes: string | null;
  language: string | null;
  enrolled: boolean;
  embedding_count: number;
  enrolled_at: string | null;
  cts_alert_config: HpAlertConfig | null;
  alert_profile: string;
}

interface HpLocation {
  person_id: string;
  room_name: string | null;
  source: string | null;
  updated_at: string | null;
  since: string | null;
  stale: boolean;
}

/** `GET /persons/alert-profiles`: the spec's presets, as the server keeps them. */
interface HpAlertProfiles {
  presets: Array<{ id: string; label: string; enabled_kinds: string[]; min_severity: string }>;
  kinds: string[];
  severities: string[];
}

/** A photo waiting to be sent, and what the API said of it. */
interface HpPhoto {
  file: Blob;
  name: string;
  thumb: string | null;
  result: "waiting" | "ok" | "refused" | "unchecked";
  why: string;
}

const HP_PERSON_FIELDS = ["display_name", "notes", "language", "cts_alert_config"] as const;

/** Who each preset is for, in the family's words (the kinds come from the server's preset). */
const HP_PROFILE_WHO: Record<string, string> = {
  senior: "The person careflow looks after.",
  adult: "Another adult of the family who lives here.",
  presence_only: "Someone for whom only being away matters.",
  custom: "Choose the signals and how serious they must be.",
};

const HP_KIND_WORDS: Record<string, string> = {
  pacing: "pacing",
  room_revisit_rate: "going back and forth between rooms",
  bathroom_dwell_anomaly: "a long time in the bathroom",
  sundowning_index: "restless in the evening",
  nighttime_movement: "moving about at night",
  stillness_anomaly: "not moving for unusually long",
  absence: "away or not seen",
};

const HP_SEVERITY_WORDS: Record<string, string> = {
  info: "Everything, information too",
  warning: "Warnings and emergencies",
  emergency: "Emergencies only",
};

const HP_SOURCE_WORDS: Record<string, string> = { camera: "a camera", hub_sensor: "a presence sensor of the hub" };

let hpProfiles: HpAlertProfiles | null = null;
let hpPeople: HpPerson[] = [];
let hpLocations = new Map<string, HpLocation>();
/** The member open in the form: a person_id, "" while adding one, null when none. */
let hpPersonOpen: string | null = null;
let hpPhotos: HpPhoto[] = [];
/** The photos shown were enrolled (a 201): the next ones start a new set, and are sent again only then. */
let hpPhotosEnrolled = false;
let hpCameraStream: MediaStream | null = null;
let hpCameraShots = 0;

const hpKindWords = (kinds: readonly string[]): string => (kinds.length === 0 ? "no signal" : kinds.map((k) => HP_KIND_WORDS[k] ?? k).join(", "));
const hpCapital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const hpProfileLabel = (id: string): string => hpProfiles?.presets.find((p) => p.id === id)?.label ?? "Custom";

function hpWhereNow(l: HpLocation | undefined): string {
  if (!l || !l.room_name) return "Not seen yet";
  const source = HP_SOURCE_WORDS[l.source ?? ""] ?? l.source ?? "unknown source";
  const where = `${l.stale ? "Last seen in" : "In"} the ${l.room_name} since ${hpWhen(l.since)}, seen by ${source}`;
  return l.stale ? `${where} (nothing newer since ${hpWhen(l.updated_at)})` : where;
}

const hpFacesText = (p: HpPerson): string =>
  p.enrolled ? `Known from ${p.embedding_count} photo${p.embedding_count === 1 ? "" : "s"} (${hpWhen(p.enrolled_at)})` : "Not enrolled";

function hpRenderPeople(): void {
  const tbody = hp$("people").querySelector("tbody")!;
  if (hpPeople.length === 0) return hpEmptyRow(tbody, 4, "No members yet.");
  tbody.replaceChildren(
    ...hpPeople.map((p) => {
      const open = hpEl("button", { type: "button", class: "link", "data-action": "open" }, p.display_name);
      open.addEventListener("click", () => hpOpenPerson(p.person_id));
      return hpEl(
        "tr",
        { "data-person": p.person_id, ...(hpPersonOpen === p.person_id ? { "aria-current": "true" } : {}) },
        hpEl("td", {}, open),
        hpEl("td", {}, hpProfileLabel(p.alert_profile)),
        hpEl("td", {}, hpFacesText(p)),
        hpEl("td", {}, hpWhereNow(hpLocations.get(p.person_id))),
      );
    }),
  );
}

/** The languages careflow has words for (`/household/languages.json`), each in its own name, as the picker's choices. */
async function hpLoadLanguages(): Promise<void> {
  const res = await fetch("/household/languages.json");
  const langs = res.ok ? ((await res.json()) as Array<{ language: string; name: string }>) : [];
  hp$("person-languages").replaceChildren(
    ...langs.map((l) => {
      const o = document.createElement("option");
      o.value = l.language;
      o.label = l.name;
      return o;
    }),
  );
}

async function hpLoadPeople(): Promise<void> {
  hpProfiles ??= await hpApi<HpAlertProfiles>("GET", "/persons/alert-profiles");
  if (!hp$("person-languages").firstChild) await hpLoadLanguages();
  if (!hp$("person-profiles").querySelector("input")) hpBuildProfileChoices();
  const [people, locations] = await Promise.all([hpApi<HpPerson[]>("GET", "/persons"), hpApi<HpLocation[]>("GET", "/persons/locations")]);
  hpPeople = people;
  hpLocations = new Map(locations.map((l) => [l.person_id, l]));
  hpRenderPeople();
  // The open member is shown as the API has them now (or closed when gone).
  if (hpPersonOpen) {
    if (hpPeople.some((p) => p.person_id === hpPersonOpen)) hpShowPersonState(hpPersonOpen);
    else hpClosePerson();
  }
}

/** The preset radios and the signals' checkboxes, from the server's presets. */
function hpBuildProfileChoices(): void {
  const profiles = hpProfiles!;
  const box = hp$("person-profiles");
  for (const id of [...profiles.presets.map((p) => p.id), "custom"]) {
    const preset = profiles.presets.find((p) => p.id === id);
    const says = preset ? `${HP_PROFILE_WHO[id] ?? ""} Alerts on: ${hpKindWords(preset.enabled_kinds)}.` : HP_PROFILE_WHO.custom;
    const inputId = `person-profile-${id}`;
    box.append(
      hpEl(
        "label",
        { class: "choice role" },
        hpEl("input", { type: "radio", name: "alert_profile", value: id, id: inputId, "aria-describedby": `${inputId}-says` }),
        hpEl("span", { class: "role-name" }, preset?.label ?? "Custom"),
        hpEl("span", { class: "muted role-says", id: `${inputId}-says` }, says),
      ),
    );
  }
  hp$("person-kinds").append(
    ...profiles.kinds.map((k) =>
      hpEl("label", { class: "choice" }, hpEl("input", { type: "checkbox", name: "kind", value: k, id: `person-kind-${k}` }), hpCapital(HP_KIND_WORDS[k] ?? k)),
    ),
  );
  hp$("person-severity").replaceChildren(...profiles.severities.map((s) => hpEl("option", { value: s }, HP_SEVERITY_WORDS[s] ?? s)));
  for (const r of Array.from(box.querySelectorAll<HTMLInputElement>("input[name=alert_profile]"))) r.addEventListener("change", () => hpProfileChosen());
}

function hpChosenProfile(): string {
  return document.querySelector<HTMLInputElement>("#person-form [name=alert_profile]:checked")?.value ?? "senior";
}

/** Shows a config in the signals' boxes; they are changed by hand only for Custom. */
function hpShowConfig(config: HpAlertConfig): void {
  for (const c of Array.from(document.querySelectorAll<HTMLInputElement>("#person-kinds input"))) c.checked = config.enabled_kinds.includes(c.value);
  hp$<HTMLSelectElement>("person-severity").value = config.min_severity;
}

function hpProfileChosen(): void {
  const preset = hpProfiles?.presets.find((p) => p.id === hpChosenProfile());
  if (preset) hpShowConfig(preset);
  // A preset's signals are shown, not chosen: the boxes are for Custom.
  hp$<HTMLFieldSetElement>("person-custom").disabled = !!preset;
  hp$("person-cts_alert_config-error").textContent = "";
}

function hpConfigToSend(): HpAlertConfig {
  const preset = hpProfiles?.presets.find((p) => p.id === hpChosenProfile());
  if (preset) return { enabled_kinds: [...preset.enabled_kinds], min_severity: preset.min_severity };
  return {
    enabled_kinds: Array.from(document.querySelectorAll<HTMLInputElement>("#person-kinds input:checked")).map((c) => c.value),
    min_severity: hp$<HTMLSelectElement>("person-severity").value,
  };
}

function hpSetProfile(id: string, config: HpAlertConfig | null): void {
  const radio = document.querySelector<HTMLInputElement>(`#person-form [name=alert_profile][value=${id}]`);
  if (radio) radio.checked = true;
  hpProfileChosen();
  // null is every kind at `info`, as the spec says.
  if (id === "custom") hpShowConfig(config ?? { enabled_kinds: hpProfiles?.kinds ?? [], min_severity: "info" });
}

/** The form for a new member. */
function hpNewPerson(): void {
  hpStopCamera();
  hpPersonOpen = "";
  const form = hp$<HTMLFormElement>("person-form");
  form.reset();
  hpClearFieldErrors("person", HP_PERSON_FIELDS);
  hp$("person-form-title").textContent = "Add a member";
  hp$("person-save").textContent = "Add the member";
  // The first member is most likely the senior; the next ones their family.
  hpSetProfile(hpPeople.length === 0 ? "senior" : "adult", null);
  hp$("person-detail").hidden = false;
  hp$("person-more").hidden = true;
  hpRenderPeople();
  hp$<HTMLInputElement>("person-name").focus();
}

function hpOpenPerson(id: string): void {
  hpStopCamera();
  hpPersonOpen = id;
  hpPhotos = [];
  hpPhotosEnrolled = false;
  hpRenderPhotos();
  hp$("person-photos-error").textContent = "";
  hp$("person-photos-status").textContent = "";
  hp$("person-camera-message").textContent = "";
  hpClearFieldErrors("person", HP_PERSON_FIELDS);
  hpShowPersonState(id);
  hp$("person-detail").hidden = false;
  hpRenderPeople();
  // An admin edits at once; a reader starts at the heading.
  if (hpIsAdmin) hp$<HTMLInputElement>("person-name").focus();
  else hp$("person-form-title").focus();
}

/** Fills the form, the faces and where-now of an existing member from the last list read. */
function hpShowPersonState(id: string): void {
  const p = hpPeople.find((x) => x.person_id === id);
  if (!p) return;
  hp$("person-form-title").textContent = p.display_name;
  hp$("person-save").textContent = "Save changes";
  hp$<HTMLInputElement>("person-name").value = p.display_name;
  hp$<HTMLTextAreaElement>("person-notes").value = p.notes ?? "";
  hp$<HTMLInputElement>("person-language").value = p.language ?? "";
  hpSetProfile(p.alert_profile, p.cts_alert_config);
  hp$("person-more").hidden = false;
  hp$("person-enrollment").textContent = p.enrolled
    ? `careflow knows ${p.display_name}'s face from ${p.embedding_count} photos, enrolled ${hpWhen(p.enrolled_at)}. New photos replace them.`
    : `Not enrolled: careflow cannot yet tell ${p.display_name} apart on its cameras.`;
  hp$("person-enrollment").dataset.enrolled = String(p.enrolled);
  hp$("person-where").textContent = hpWhereNow(hpLocations.get(id));
}

function hpClosePerson(): void {
  hpStopCamera();
  hpPersonOpen = null;
  hpPhotos = [];
  hp$("person-detail").hidden = true;
  hpRenderPeople();
}

function hpSavePerson(e: Event): void {
  e.preventDefault();
  const body = {
    display_name: hp$<HTMLInputElement>("person-name").value,
    notes: hp$<HTMLTextAreaElement>("person-notes").value || null,
    language: hp$<HTMLInputElement>("person-language").value.trim() || null,
    cts_alert_config: hpConfigToSend(),
  };
  const adding = hpPersonOpen === "";
  hpClearFieldErrors("person", HP_PERSON_FIELDS);
  const call = adding ? hpApi<HpPerson>("POST", "/persons", body) : hpApi<HpPerson>("PATCH", `/persons/${encodeURIComponent(hpPersonOpen ?? "")}`, body);
  call
    .then(async (p) => {
      hpNotice(adding ? `Added ${p.display_name}. Now enroll their face so the cameras know them.` : `Saved ${p.display_name}.`, "ok");
      hpPersonOpen = p.person_id;
      await hpLoadPeople();
      if (adding) hpOpenPerson(p.person_id);
    })
    .catch((err: Error) => hpShowFieldErrors("person", HP_PERSON_FIELDS, err.message));
}

/** A photo's name, unique among those waiting (a phone names every photo `image.jpg`), so the API's answer names one. */
function hpUniqueName(name: string): string {
  const taken = new Set(hpPhotos.map((p) => p.name));
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf(".");
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  let n = 2;
  while (taken.has(`${base}-${n}${ext}`)) n++;
  return `${base}-${n}${ext}`;
}

/** A small preview as a data: image (the page's policy allows no blob: images); null for what is no picture. */
async function hpThumb(file: Blob): Promise<string | null> {
  try {
    const bmp = await createImageBitmap(file);
    const canvas = document.createElement("canvas");
    canvas.width = 160;
    canvas.height = 120;
    const scale = Math.max(160 / bmp.width, 120 / bmp.height);
    const w = bmp.width * scale;
    const h = bmp.height * scale;
    canvas.getContext("2d")?.drawImage(bmp, (160 - w) / 2, (120 - h) / 2, w, h);
    bmp.close();
    return canvas.toDataURL("image/jpeg", 0.8);
  } catch {
    return null;
  }
}

async function hpAddPhotos(files: ReadonlyArray<{ blob: Blob; name: string }>): Promise<void> {
  // After an enrollment the next photos are a new set; after a refusal they join the kept ones.
  if (hpPhotosEnrolled) hpPhotos = [];
  hpPhotosEnrolled = false;
  for (const f of files) hpPhotos.push({ file: f.blob, name: hpUniqueName(f.name), thumb: await hpThumb(f.blob), result: "waiting", why: "" });
  hp$("person-photos-error").textContent = "";
  hpRenderPhotos();
}

const HP_RESULT_WORDS: Record<HpPhoto["result"], string> = {
  waiting: "Not sent yet",
  ok: "Face found",
  refused: "Refused",
  unchecked: "Not checked",
};

function hpRenderPhotos(): void {
  const list = hp$("person-photos");
  list.replaceChildren(
    ...hpPhotos.map((p, i) => {
      const remove = hpEl("button", { type: "button", class: "remove", "aria-label": `Remove ${p.name}` }, "Remove");
      remove.addEventListener("click", () => {
        hpPhotos.splice(i, 1);
        hpRenderPhotos();
        hp$("person-photos-input").focus();
      });
      const picture = p.thumb ? hpEl("img", { src: p.thumb, alt: `Photo ${p.name}` }) : hpEl("div", { class: "no-picture" }, "No preview");
      const result = hpEl("p", { class: "photo-result" }, hpEl("strong", {}, HP_RESULT_WORDS[p.result]), p.why ? `: ${p.why}` : "");
      return hpEl(
        "li",
        { class: "photo", "data-photo-name": p.name, "data-result": p.result },
        picture,
        hpEl("p", { class: "photo-name" }, p.name),
        result,
        ...(hpPhotosEnrolled ? [] : [remove]),
      );
    }),
  );
  const n = hpPhotos.length;
  hp$("person-photo-count").textContent =
    n === 0
      ? "No photos chosen yet: 5 to 10 are needed."
      : `${n} photo${n === 1 ? "" : "s"}${n < 5 ? `: ${5 - n} more needed (5 to 10).` : n > 10 ? ": at most 10." : "."}`;
  hp$<HTMLButtonElement>("person-enroll").disabled = n === 0 || hpPhotosEnrolled;
}

/**
 * Says the API's answer on each photo: a 201 took them all; a 422 names every refused photo
 * (`photos: no face found in 'a.jpg'; photos: 'b.jpg' shows 2 faces …`), so an unnamed one had
 * its face found; an answer naming no photo (too few, the service away) checked none.
 */
function hpPhotoResults(detail: string | null): void {
  const parts = detail === null ? [] : detail.split(/; (?=photos: )/).map((s) => s.replace(/^photos: /, ""));
  const named = (p: HpPhoto) => parts.find((part) => part.includes(`'${p.name}'`));
  const anyNamed = hpPhotos.some((p) => named(p) !== undefined);
  for (const p of hpPhotos) {
    const part = named(p);
    if (detail === null) [p.result, p.why] = ["ok", ""];
    else if (part) [p.result, p.why] = ["refused", part.replace(`'${p.name}'`, "this photo")];
    else [p.result, p.why] = anyNamed ? ["ok", ""] : ["unchecked", ""];
  }
  hp$("person-photos-error").textContent = detail !== null && !anyNamed ? detail : "";
  hpRenderPhotos();
}

function hpEnroll(): void {
  const id = hpPersonOpen;
  if (!id) return;
  const form = new FormData();
  for (const p of hpPhotos) form.append("photos", p.file, p.name);
  const button = hp$<HTMLButtonElement>("person-enroll");
  button.disabled = true;
  hp$("person-photos-status").textContent = "Looking for a face in each photo…";
  hp$("person-photos-error").textContent = "";
  // Multipart, so not through hpApi (JSON); the same key, and the same `{"detail"}` on a refusal.
  fetch(`/api/v1/persons/${encodeURIComponent(id)}/enroll`, { method: "POST", headers: { "X-API-Key": hpKey ?? "" }, body: form })
    .then(async (res) => {
      const answer = (await res.json().catch(() => null)) as { detail?: string; embedding_count?: number } | null;
      if (res.status === 401) hpSignOut(answer?.detail ?? "");
      if (res.ok) {
        hpPhotosEnrolled = true;
        hpPhotoResults(null);
        hp$("person-photos-status").textContent = `Enrolled: careflow now knows this face from ${answer?.embedding_count ?? hpPhotos.length} photos.`;
        await hpLoadPeople();
      } else {
        hpPhotoResults(answer?.detail ?? `${res.status} ${res.statusText}`);
        hp$("person-photos-status").textContent = hpPhotos.some((p) => p.result === "refused")
          ? "Nothing was stored: remove the refused photos (add others if fewer than 5 are left) and enroll again."
          : "Nothing was stored.";
      }
    })
    .catch((err: Error) => {
      hp$("person-photos-error").textContent = err.message;
      hp$("person-photos-status").textContent = "";
    })
    .finally(() => hpRenderPhotos());
}

async function hpStartCamera(): Promise<void> {
  const msg = hp$("person-camera-message");
  msg.textContent = "";
  if (!navigator.mediaDevices?.getUserMedia) {
    msg.textContent =
      "This browser cannot use a camera on this page (a camera needs the page at an https address, or on this computer). Choose photos instead.";
    return;
  }
  try {
    hpCameraStream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 1280 }, height: { ideal: 720 } }, audio: false });
  } catch (err) {
    const name = err instanceof DOMException ? err.name : "";
    msg.textContent =
      name === "NotAllowedError"
        ? "The camera was not allowed. Allow it for this page in the browser, or choose photos instead."
        : name === "NotFoundError" || name === "OverconstrainedError"
          ? "No camera was found on this device. Choose photos instead."
          : `The camera did not start (${err instanceof Error ? err.message : String(err)}). Choose photos instead.`;
    return;
  }
  const video = hp$<HTMLVideoElement>("person-camera-video");
  video.srcObject = hpCameraStream;
  hp$("person-camera").hidden = false;
  await video.play().catch(() => undefined);
  hp$("person-camera-take").focus();
}

function hpStopCamera(): void {
  for (const track of hpCameraStream?.getTracks() ?? []) track.stop();
  hpCameraStream = null;
  const video = document.getElementById("person-camera-video") as HTMLVideoElement | null;
  if (video) video.srcObject = null;
  const box = document.getElementById("person-camera");
  if (box) box.hidden = true;
}

function hpTakePhoto(): void {
  const video = hp$<HTMLVideoElement>("person-camera-video");
  if (!video.videoWidth) return;
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext("2d")?.drawImage(video, 0, 0);
  canvas.toBlob(
    (blob) => {
      if (blob) void hpAddPhotos([{ blob, name: `camera-${++hpCameraShots}.jpg` }]);
    },
    "image/jpeg",
    0.92,
  );
}

function hpPeopleInit(): void {
  hpTabLoaders.people = async () => {
    hpStopCamera();
    // A caregiver reads: the form's fields are shown but cannot be changed.
    hp$<HTMLFieldSetElement>("person-fields").disabled = !hpIsAdmin;
    await hpLoadPeople();
  };
  hp$("person-add").addEventListener("click", hpNewPerson);
  hp$("person-form").addEventListener("submit", hpSavePerson);
  hp$("person-cancel").addEventListener("click", hpClosePerson);
  hpClearOnEdit("person", HP_PERSON_FIELDS);
  const input = hp$<HTMLInputElement>("person-photos-input");
  input.addEventListener("change", () => {
    const files = Array.from(input.files ?? []).map((f) => ({ blob: f as Blob, name: f.name }));
    input.value = "";
    void hpAddPhotos(files);
  });
  hp$("person-enroll").addEventListener("click", hpEnroll);
  hp$("person-camera-start").addEventListener("click", () => void hpStartCamera());
  hp$("person-camera-take").addEventListener("click", hpTakePhoto);
  hp$("person-camera-stop").addEventListener("click", () => {
    hpStopCamera();
    hp$("person-camera-start").focus();
  });
  // The camera is not left on behind another tab, nor for the next person at this screen.
  hp$("tabs").addEventListener("click", (e) => {
    if (e.target instanceof HTMLElement && e.target.dataset.tab && e.target.dataset.tab !== "people") hpStopCamera();
  });
  hp$("sign-out").addEventListener("click", hpClosePerson);
}
