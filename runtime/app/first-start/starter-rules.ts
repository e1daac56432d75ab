/**
 * Starter rules for a household's first start (issue 43 §3): the demo's example bundles
 * (`flows/examples/`, the same files the demo imports) made for THIS household. Each example
 * names the demo's sensor (`binary_sensor.bathroom_presence`), person (`rose`) and her name in its
 * messages; here they become the household's presence sensor in the room of that name (or the one
 * the caller names), its senior and her name. The rule is then imported through `commitImport`,
 * the path every imported rule takes (checked, deployed, all or nothing).
 */
import path from "node:path";
import type { AppContext } from "../context";
import { ConflictError, ValidationError } from "../../platform/core/errors";
import { listSensors, type Sensor } from "../../household/sensors/sensors.service";
import { listPersons } from "../../household/persons/persons.service";
import { commitImport, ImportRefused, previewImport } from "../../care/core/rules/bundles/bundle-import";
import type { ImportReport } from "../../care/core/rules/bundles/bundle-schema";
import { exampleBundleFiles, readBundleFile } from "../demo/example-rules";

const DEMO_PERSON = "rose";
const DEMO_NAME = /\bRose\b/g;

export interface StarterRule {
  /** The example's file name without extension, e.g. `bathroom-check`. */
  name: string;
  title: string;
  description: string;
  /** The room word the example's sensor stands for (`bathroom`), matched against room names. */
  room: string;
}

interface Template extends StarterRule {
  bundle: Record<string, unknown>;
  sensorLabel: string;
}

function templates(): Template[] {
  return exampleBundleFiles().flatMap((file) => {
    const bundle = readBundleFile(file) as { rule?: { name?: string; description?: string; primary_sensor_ref?: { label?: string } } };
    const label = bundle?.rule?.primary_sensor_ref?.label;
    if (!label) return [];
    return [
      {
        name: path.basename(file).replace(/\.(ya?ml|json)$/, ""),
        title: String(bundle.rule?.name ?? ""),
        description: String(bundle.rule?.description ?? ""),
        room: roomWord(label),
        bundle: bundle as Record<string, unknown>,
        sensorLabel: label,
      },
    ];
  });
}

/** `binary_sensor.living_room_presence` → `living room`. */
const roomWord = (sensorLabel: string): string =>
  sensorLabel
    .replace(/^[a-z_]+\./, "")
    .replace(/_(presence|illuminance|motion|occupancy)$/, "")
    .replace(/_/g, " ");

/** The examples as offered to a household: its senior is not named yet here. */
export const listStarterRules = (): StarterRule[] =>
  templates().map(({ name, title, description, room }) => ({ name, title, description: description.replace(DEMO_NAME, "the senior"), room }));

export interface StarterRequest {
  rules: string[];
  person_id?: string;
  /** A sensor per starter rule, where the room match is not the one wanted. */
  sensors?: Record<string, string>;
}

export function parseStarterRequest(body: unknown): StarterRequest {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ValidationError("body: a JSON object is expected");
  if (!Array.isArray(b.rules) || b.rules.length === 0 || b.rules.some((r) => typeof r !== "string")) {
    throw new ValidationError("rules: a non-empty list of starter rule names is expected");
  }
  if (b.person_id !== undefined && typeof b.person_id !== "string") throw new ValidationError("person_id: a string is expected");
  if (b.sensors !== undefined) {
    if (typeof b.sensors !== "object" || b.sensors === null || Array.isArray(b.sensors) || Object.values(b.sensors).some((v) => typeof v !== "string")) {
      throw new ValidationError("sensors: an object of rule name to sensor id is expected");
    }
  }
  return { rules: b.rules as string[], person_id: b.person_id as string | undefined, sensors: b.sensors as Record<string, string> | undefined };
}

/** A presence sensor in a room named like the example's, else any sensor there. */
function sensorFor(t: Template, sensors: Sensor[], chosen: string | undefined): Sensor {
  if (chosen !== undefined) {
    const s = sensors.find((x) => x.sensor_id === chosen);
    if (!s) throw new ValidationError(`sensors.${t.name}: no sensor '${chosen}' in this household`);
    return s;
  }
  const inRoom = sensors.filter((s) => s.enabled && (s.room_name ?? "").toLowerCase().includes(t.room));
  const s = inRoom.find((x) => x.sensor_type === "presence") ?? inRoom[0];
  if (!s) throw new ValidationError(`sensors.${t.name}: no sensor in a room named like '${t.room}'; name one`);
  return s;
}

/** Every string of `v` with the demo's sensor, person and name replaced by the household's. */
function rewrite(v: unknown, from: { sensor: string }, to: { sensor: string; person: string; name: string }): unknown {
  if (typeof v === "string") {
    if (v === from.sensor) return to.sensor;
    if (v === DEMO_PERSON) return to.person;
    return v.replace(DEMO_NAME, to.name);
  }
  if (Array.isArray(v)) return v.map((x) => rewrite(x, from, to));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x, from, to)]));
  return v;
}

/** Builds and imports each asked starter rule; all are checked before the first is imported. */
export async function createStarterRules(ctx: AppContext, req: StarterRequest): Promise<ImportReport[]> {
  const all = templates();
  const sensors = await listSensors(ctx);
  const persons = await listPersons(ctx);
  const person = req.person_id !== undefined ? persons.find((p) => p.person_id === req.person_id) : persons[0];
  if (req.person_id !== undefined && !person) throw new ValidationError(`person_id: no person '${req.person_id}' in this household`);
  const planned = req.rules.map((name, i) => {
    const t = all.find((x) => x.name === name);
    if (!t) throw new ValidationError(`rules.${i}: no starter rule '${name}' (known: ${all.map((x) => x.name).join(", ")})`);
    const sensor = sensorFor(t, sensors, req.sensors?.[name]);
    if (!person && JSON.stringify(t.bundle).includes(`"${DEMO_PERSON}"`)) {
      throw new ValidationError(`person_id: the starter rule '${name}' is about a person; add the senior first`);
    }
    const to = { sensor: sensor.sensor_id, person: person?.person_id ?? DEMO_PERSON, name: person?.display_name ?? "the senior" };
    return rewrite(t.bundle, { sensor: t.sensorLabel }, to);
  });
  // Every rule is previewed before the first is made, so a refused one (a name taken) leaves
  // nothing half made: the household gets all it asked for or none of it.
  for (const bundle of planned) {
    const report = await previewImport(ctx, bundle);
    if (report.status !== "error") continue;
    if (report.errors.some((e) => /already exists/.test(e))) throw new ConflictError(`A rule named '${report.rule_name}' already exists`);
    throw new ImportRefused(report);
  }
  const reports: ImportReport[] = [];
  for (const bundle of planned) reports.push(await commitImport(ctx, bundle));
  return reports;
}
