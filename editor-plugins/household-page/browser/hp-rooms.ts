/**
 * The Household page's Rooms and sensors tab (issue 43 §1): the rooms with their sensors, a room
 * added, renamed or deleted, a sensor added, changed or deleted, and the hub's areas and sensors
 * imported (`POST /ha/sync/rooms`, then `/ha/sync/sensors`). Only `/api/v1`: a room or sensor a
 * rule still uses is refused by the API with a sentence naming the rule, said here beside it.
 * A caregiver reads the lists; the forms and buttons are the admin's (the API says so too).
 */

interface HpRoom {
  id: number;
  name: string;
  ha_area_id: string | null;
}

/** A sensor as `GET /sensors` lists it (hp-devices.ts reads fewer of its fields). */
interface HpSensorRow extends HpSensor {
  id: number;
  room_id: number | null;
  source: string;
}

interface HpSyncReport {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Array<{ id: string; reason: string }>;
  total: number;
}

const HP_ROOM_FIELDS = ["name"] as const;
const HP_SENSOR_FIELDS = ["sensor_id", "name", "sensor_type", "room_id"] as const;

/** Each sensor type in the family's words. */
const HP_SENSOR_TYPES: Record<string, string> = {
  presence: "Presence",
  camera: "Camera",
  light: "Light level",
  button: "Button",
  eink: "E-ink display",
};

/** Where a sensor came from, said for the family. */
const HP_SOURCES: Record<string, string> = { hub: "the hub", manual: "added here", device_key: "a device key" };

let hpRooms: HpRoom[] = [];
let hpSensorRows: HpSensorRow[] = [];
/** The sensor being changed in the sensor form (its sensor_id), or null when adding. */
let hpEditingSensor: string | null = null;

/** A refusal without its field's name, for a message said beside that field already. */
const hpWithoutField = (detail: string, field: string): string => detail.replace(new RegExp(`^${field}: `), "");

/** Asks in the row's action cell before a delete; `onYes` does it. */
function hpConfirmInRow(actions: HTMLElement, question: string, yesLabel: string, onYes: () => void, onNo: () => void): void {
  actions.replaceChildren();
  const yes = hpEl("button", { type: "button", "data-action": "confirm-delete", class: "danger" }, yesLabel);
  const no = hpEl("button", { type: "button", "data-action": "keep" }, "Keep it");
  actions.append(hpEl("span", { class: "confirm" }, question), yes, no);
  yes.addEventListener("click", onYes);
  no.addEventListener("click", onNo);
  no.focus();
}

/**
 * Asks in the row before deleting `what` at `path`; a refusal (a rule still uses it: the API's
 * sentence names the rule) is said under the row and its buttons come back.
 */
function hpConfirmDelete(row: HTMLElement, actions: HTMLElement, what: string, path: string, showActions: () => void): void {
  hpConfirmInRow(
    actions,
    `Delete ${what}?`,
    "Yes, delete",
    () =>
      void hpApi<null>("DELETE", path)
        .then(async () => {
          hpNotice(`Deleted ${what}.`, "ok");
          await hpLoadRooms();
        })
        .catch((err: Error) => {
          showActions();
          hpRoomMessage(row, err.message);
        }),
    () => {
      showActions();
      hpRoomMessage(row, "");
    },
  );
}

function hpRoomRow(room: HpRoom): HTMLElement {
  const sensors = hpSensorRows.filter((s) => s.room_id === room.id);
  const nameCell = hpEl("td", { class: "room-name" }, room.name);
  const actions = hpEl("div", { class: "row-actions admin-only" });
  const row = hpEl(
    "tr",
    { "data-room": room.name },
    nameCell,
    hpEl("td", {}, sensors.length === 0 ? hpEl("span", { class: "muted" }, "none") : sensors.map((s) => s.name).join(", ")),
    hpEl("td", {}, room.ha_area_id ? hpEl("span", { class: "badge", "data-status": "hub", title: `hub area ${room.ha_area_id}` }, "from the hub") : ""),
    hpEl("td", {}, actions),
  );
  const showActions = () => {
    const rename = hpEl("button", { type: "button", "data-action": "rename" }, "Rename");
    const del = hpEl("button", { type: "button", "data-action": "delete", class: "danger" }, "Delete");
    actions.replaceChildren(rename, del);
    rename.addEventListener("click", startRename);
    del.addEventListener("click", () => hpConfirmDelete(row, actions, `the room "${room.name}"`, `/rooms/${room.id}`, showActions));
  };
  const startRename = () => {
    const input = hpEl("input", { name: "name", value: room.name, maxlength: "100", "aria-label": `New name of "${room.name}"` });
    const save = hpEl("button", { type: "button", "data-action": "save", class: "primary" }, "Save");
    const cancel = hpEl("button", { type: "button", "data-action": "cancel" }, "Cancel");
    const form = hpEl("form", { class: "inline-form" }, input, save, cancel);
    nameCell.replaceChildren(form);
    actions.replaceChildren();
    input.focus();
    input.select();
    const done = () => {
      nameCell.replaceChildren(room.name);
      hpRoomMessage(row, "");
      showActions();
    };
    cancel.addEventListener("click", done);
    const submit = () =>
      void hpApi<HpRoom>("PUT", `/rooms/${room.id}`, { name: input.value })
        .then(async (renamed) => {
          hpNotice(`Renamed "${room.name}" to "${renamed.name}".`, "ok");
          await hpLoadRooms();
        })
        .catch((err: Error) => {
          input.setAttribute("aria-invalid", "true");
          hpRoomMessage(row, hpWithoutField(err.message, "name"));
        });
    save.addEventListener("click", submit);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      submit();
    });
  };
  showActions();
  return row;
}

/** A room's refusal, said in a line under its row (the API's sentence, which names the rule). */
function hpRoomMessage(row: HTMLElement, text: string): void {
  const next = row.nextElementSibling;
  if (next?.classList.contains("row-message")) next.remove();
  if (!text) return;
  row.after(hpEl("tr", { class: "row-message" }, hpEl("td", { colspan: String(row.children.length), role: "alert" }, text)));
}

function hpSensorRow(s: HpSensorRow): HTMLElement {
  const actions = hpEl("div", { class: "row-actions admin-only" });
  const row = hpEl(
    "tr",
    { "data-sensor": s.sensor_id },
    hpEl("td", {}, s.name),
    hpEl("td", { class: "mono" }, s.sensor_id),
    hpEl("td", {}, HP_SENSOR_TYPES[s.sensor_type] ?? s.sensor_type),
    hpEl("td", {}, s.room_name ?? hpEl("span", { class: "muted" }, "no room")),
    hpEl("td", {}, HP_SOURCES[s.source] ?? s.source),
    hpEl("td", {}, actions),
  );
  const showActions = () => {
    const edit = hpEl("button", { type: "button", "data-action": "edit" }, "Change");
    const del = hpEl("button", { type: "button", "data-action": "delete", class: "danger" }, "Delete");
    actions.replaceChildren(edit, del);
    edit.addEventListener("click", () => hpEditSensor(s));
    del.addEventListener("click", () => hpConfirmDelete(row, actions, `the sensor "${s.name}"`, `/sensors/${encodeURIComponent(s.sensor_id)}`, showActions));
  };
  showActions();
  return row;
}

/** The room picker of the sensor form: no room, or one of the household's. */
function hpFillRoomPicker(selected: number | null): void {
  const select = hp$<HTMLSelectElement>("sensor-room");
  select.replaceChildren(
    hpEl("option", { value: "" }, "No room"),
    ...hpRooms.map((r) => hpEl("option", { value: String(r.id), ...(r.id === selected ? { selected: "" } : {}) }, r.name)),
  );
}

function hpEditSensor(s: HpSensorRow | null): void {
  hpEditingSensor = s?.sensor_id ?? null;
  const form = hp$<HTMLFormElement>("sensor-form");
  form.reset();
  hpClearFieldErrors("sensor", HP_SENSOR_FIELDS);
  const id = form.querySelector<HTMLInputElement>("[name=sensor_id]")!;
  id.value = s?.sensor_id ?? "";
  id.readOnly = !!s;
  form.querySelector<HTMLInputElement>("[name=name]")!.value = s?.name ?? "";
  form.querySelector<HTMLSelectElement>("[name=sensor_type]")!.value = s?.sensor_type ?? "presence";
  hpFillRoomPicker(s?.room_id ?? null);
  hp$("sensor-form-title").textContent = s ? `Change the sensor "${s.name}"` : "Add a sensor";
  hp$("sensor-submit").textContent = s ? "Save the sensor" : "Add the sensor";
  hp$("sensor-cancel").hidden = !s;
  if (s) {
    form.scrollIntoView({ block: "nearest" });
    form.querySelector<HTMLInputElement>("[name=name]")!.focus();
  }
}

async function hpLoadRooms(): Promise<void> {
  [hpRooms, hpSensorRows] = await Promise.all([hpApi<HpRoom[]>("GET", "/rooms"), hpApi<HpSensorRow[]>("GET", "/sensors")]);
  const rooms = hp$("rooms").querySelector("tbody")!;
  if (hpRooms.length === 0) hpEmptyRow(rooms, 4, "No rooms yet: add one, or import them from the hub.");
  else rooms.replaceChildren(...hpRooms.map(hpRoomRow));
  const sensors = hp$("sensors").querySelector("tbody")!;
  if (hpSensorRows.length === 0) hpEmptyRow(sensors, 6, "No sensors yet.");
  else sensors.replaceChildren(...hpSensorRows.map(hpSensorRow));
  // The picker keeps what is chosen while the lists are read again.
  const picked = hp$<HTMLSelectElement>("sensor-room").value;
  hpFillRoomPicker(picked ? Number(picked) : (hpSensorRows.find((s) => s.sensor_id === hpEditingSensor)?.room_id ?? null));
}

/** `2 added, 1 changed, 3 already here` (what is zero is not said), or `nothing new`. */
function hpSaySync(r: HpSyncReport, what: string): string {
  const parts = [
    r.created ? `${r.created} added` : "",
    r.updated ? `${r.updated} changed` : "",
    r.unchanged ? `${r.unchanged} already here` : "",
    r.skipped.length ? `${r.skipped.length} left out` : "",
  ].filter(Boolean);
  return `${what}: ${parts.length ? parts.join(", ") : "none found"}`;
}

/** Imports the hub's areas as rooms, then their sensors; says what happened in one line. */
async function hpImportFromHub(): Promise<string> {
  const rooms = await hpApi<HpSyncReport>("POST", "/ha/sync/rooms", {});
  const sensors = await hpApi<HpSyncReport>("POST", "/ha/sync/sensors", {});
  return `From the hub. ${hpSaySync(rooms, "Rooms")}. ${hpSaySync(sensors, "Sensors")}.`;
}

/** The import button of either tab: its result said beside it, a hub not set up said so. */
function hpImportButton(button: HTMLButtonElement, said: HTMLElement, after: () => Promise<void>): void {
  button.addEventListener("click", () => {
    button.disabled = true;
    said.className = "import-result";
    said.textContent = "Importing…";
    hpImportFromHub()
      .then(async (text) => {
        said.textContent = text;
        said.classList.add("ok");
        await after();
      })
      .catch((err: Error) => {
        said.textContent =
          err instanceof HpError && err.status === 503
            ? `Could not import: ${err.message}. Set the hub up in the Connections tab first.`
            : `Could not import: ${err.message}`;
        said.classList.add("error");
      })
      .finally(() => (button.disabled = false));
  });
}

function hpRoomsInit(): void {
  hpTabLoaders.rooms = hpLoadRooms;
  const sensorType = hp$<HTMLSelectElement>("sensor-type");
  sensorType.replaceChildren(...Object.entries(HP_SENSOR_TYPES).map(([value, label]) => hpEl("option", { value }, label)));

  const roomForm = hp$<HTMLFormElement>("room-form");
  hpClearOnEdit("room", HP_ROOM_FIELDS);
  roomForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = String(new FormData(roomForm).get("name") ?? "");
    hpClearFieldErrors("room", HP_ROOM_FIELDS);
    hpApi<HpRoom>("POST", "/rooms", { name })
      .then(async (room) => {
        roomForm.reset();
        hpNotice(`Added the room "${room.name}".`, "ok");
        await hpLoadRooms();
      })
      // A name taken is a 409 naming no field: it is the name's problem all the same.
      .catch((err: Error) => hpShowFieldErrors("room", HP_ROOM_FIELDS, err instanceof HpError && err.status === 409 ? `name: ${err.message}` : err.message));
  });

  const sensorForm = hp$<HTMLFormElement>("sensor-form");
  hpClearOnEdit("sensor", HP_SENSOR_FIELDS);
  sensorForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(sensorForm);
    const room = String(data.get("room_id") ?? "");
    const fields = {
      name: String(data.get("name") ?? ""),
      sensor_type: String(data.get("sensor_type") ?? ""),
      room_id: room ? Number(room) : null,
    };
    const editing = hpEditingSensor;
    hpClearFieldErrors("sensor", HP_SENSOR_FIELDS);
    const call = editing
      ? hpApi<HpSensorRow>("PUT", `/sensors/${encodeURIComponent(editing)}`, fields)
      : hpApi<HpSensorRow>("POST", "/sensors", { sensor_id: String(data.get("sensor_id") ?? ""), ...fields });
    call
      .then(async (s) => {
        hpEditSensor(null);
        hpNotice(editing ? `Saved the sensor "${s.name}".` : `Added the sensor "${s.name}".`, "ok");
        await hpLoadRooms();
      })
      .catch((err: Error) =>
        hpShowFieldErrors("sensor", HP_SENSOR_FIELDS, err instanceof HpError && err.status === 409 && !editing ? `sensor_id: ${err.message}` : err.message),
      );
  });
  hp$("sensor-cancel").addEventListener("click", () => hpEditSensor(null));
  hpImportButton(hp$<HTMLButtonElement>("rooms-import"), hp$("rooms-import-result"), hpLoadRooms);
}
