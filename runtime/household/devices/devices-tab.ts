/**
 * The "Devices" system tab (`flows/system/devices.json`): the device-in nodes and the ingest
 * stages wired after them. It ships with careflow, is locked in the editor against accidental
 * edits, and is restored when a deploy deletes it. An integrator may unlock it and wire extra
 * nodes to any of its nodes; what a deploy may not do is remove one of its nodes, change a
 * node's type or the device it serves, cut one of its wires, or disable it: each of those
 * would silently stop the cameras or the terminal, so the deploy is refused saying which.
 */
import fs from "node:fs";
import path from "node:path";
import type { Knex } from "knex";
import { readFlows, writeFlows, type FlowNode } from "../../platform/nodered/flow-store";

export const DEVICES_TAB_ID = "de71ce5000000000";

let defaults: FlowNode[] | undefined;

/** The tab and its nodes as shipped. */
export function devicesTabDefaults(): FlowNode[] {
  if (!defaults) {
    const candidates = [path.resolve(__dirname, "../../../../flows/system/devices.json"), path.resolve(__dirname, "../../../flows/system/devices.json")];
    const file = candidates.find((f) => fs.existsSync(f));
    if (!file) throw new Error("flows/system/devices.json is missing from this installation");
    defaults = JSON.parse(fs.readFileSync(file, "utf8")) as FlowNode[];
  }
  return defaults.map((n) => structuredClone(n));
}

const hasTab = (flows: readonly FlowNode[]): boolean => flows.some((n) => n.id === DEVICES_TAB_ID && n.type === "tab");

/** The flows with the Devices tab put back when it is missing (its nodes are dropped first, so none is twice). */
export function withDevicesTab(flows: readonly FlowNode[]): { flows: FlowNode[]; restored: boolean } {
  if (hasTab(flows)) return { flows: [...flows], restored: false };
  const shipped = devicesTabDefaults();
  const ids = new Set(shipped.map((n) => n.id));
  return { flows: [...flows.filter((n) => !ids.has(n.id) && n.z !== DEVICES_TAB_ID), ...shipped], restored: true };
}

/** Adds the tab to the stored flows when they lack it (a new store, or one from before the tab). */
export async function ensureDevicesTab(db: Knex): Promise<boolean> {
  const flows = await readFlows(db);
  const next = withDevicesTab(flows);
  if (next.restored) await writeFlows(db, next.flows);
  return next.restored;
}

export interface DevicesTabProblem {
  node_id: string;
  message: string;
}

const outputsOf = (n: FlowNode): string[][] => (Array.isArray(n.wires) ? (n.wires as unknown[]).map((w) => (Array.isArray(w) ? w.map(String) : [])) : []);
const label = (n: FlowNode): string => (typeof n.name === "string" && n.name ? `'${n.name}'` : `the ${String(n.type).replace(/^care-device-/, "")} node`);
const deviceOf = (n: FlowNode): unknown => (n.config as Record<string, unknown> | undefined)?.device;

/** What a deploy may not do to the Devices tab; the tab itself missing is not a problem (it is restored). */
export function checkDevicesTab(flows: readonly FlowNode[]): DevicesTabProblem[] {
  const tab = flows.find((n) => n.id === DEVICES_TAB_ID && n.type === "tab");
  if (!tab) return [];
  const problems: DevicesTabProblem[] = [];
  if (tab.disabled === true)
    problems.push({ node_id: DEVICES_TAB_ID, message: "the Devices tab cannot be disabled: cameras and the terminal would stop reaching careflow" });
  const byId = new Map(flows.map((n) => [n.id, n]));
  for (const shipped of devicesTabDefaults()) {
    if (shipped.type === "tab") continue;
    const now = byId.get(shipped.id);
    if (!now || now.z !== DEVICES_TAB_ID) {
      problems.push({ node_id: shipped.id, message: `the Devices tab must keep its ${label(shipped)} node (${shipped.type})` });
      continue;
    }
    if (now.type !== shipped.type) problems.push({ node_id: shipped.id, message: `${label(shipped)} must stay a ${shipped.type} node` });
    if (deviceOf(shipped) !== undefined && deviceOf(now) !== deviceOf(shipped))
      problems.push({ node_id: shipped.id, message: `${label(shipped)} must keep serving ${String(deviceOf(shipped))} input` });
    if (now.d === true) problems.push({ node_id: shipped.id, message: `${label(shipped)} cannot be disabled` });
    const kept = outputsOf(now);
    outputsOf(shipped).forEach((targets, port) => {
      for (const target of targets) {
        if (!(kept[port] ?? []).includes(target)) {
          problems.push({
            node_id: shipped.id,
            message: `the wire from ${label(shipped)} to ${label(byId.get(target) ?? { id: target, type: "node" })} must stay`,
          });
        }
      }
    });
  }
  // One device-in per device kind, or requests would go to whichever started first.
  const entries = flows.filter((n) => n.type === "care-device-in");
  for (const kind of ["camera", "terminal"]) {
    const serving = entries.filter((n) => deviceOf(n) === kind);
    for (const extra of serving.filter(
      (n) => n.z !== DEVICES_TAB_ID || !byId.has(n.id) || n.id !== devicesTabDefaults().find((d) => deviceOf(d) === kind)?.id,
    )) {
      problems.push({ node_id: extra.id, message: `only the Devices tab's device-in node serves ${kind} input; wire your nodes after it instead` });
    }
  }
  return problems;
}
