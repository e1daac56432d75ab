/**
 * One run as a person traces it (`GET /workflows/{id}/detail` and the editor's runs view):
 * the snapshot, the camera frames that started it, a timeline of every step with what it
 * read, what it wrote, its own trace (message, prompt, images, answer), the images it sent as
 * frames (run-frames.ts) and receipts, and the path the run took on the canvas.
 */
import { inspectTexts } from "../../rules/step-checks";
import { stepSpecByType } from "../../rules/care-types";
import type { ExecutionRow } from "../engine/execution-rows";
import type { GraphSnapshot } from "../engine/graph-snapshot";
import type { StepRecord } from "../engine/run-state";
import type { RunFrames } from "./run-frames";
import { runWarnings } from "./runs.service";
import { stepSentence } from "./step-sentences";
import { handStartFields, handStartWords } from "./hand-start";

/** What the steps' sentences need beyond the run: the household's zone and the senior's name. */
export interface RunWords {
  timezone: string;
  senior: string;
}

const NO_WORDS: RunWords = { timezone: "UTC", senior: "the senior" };

const ENDED = new Set(["completed", "failed", "cancelled"]);
const UNTIMED = new Set<StepRecord["status"]>(["running", "interrupted"]);

export function detailView(r: ExecutionRow, frames: RunFrames, words: RunWords = NO_WORDS) {
  const recorded = new Map(r.step_records.map((s) => [s.step_id, s]));
  const timeline = r.graph.steps.map((st) => {
    const rec = recorded.get(st.id);
    return {
      step_id: st.id,
      // The step in a sentence, what a caregiver reads first ("Sent to the family chat at 07:00: …").
      sentence: stepSentence(
        { step_type: st.step_type, label: st.label, config: st.config, record: rec },
        { data: r.pipeline_data, timezone: words.timezone, senior: words.senior, resume_at: r.resume_at, ended: ENDED.has(r.status) },
      ),
      node_id: st.node_id,
      label: st.label,
      step_type: st.step_type,
      category: stepSpecByType(st.step_type)?.category ?? "flow",
      icon: stepSpecByType(st.step_type)?.palette.icon ?? null,
      status: stepStatus(r, rec),
      started_at: rec?.started_at ?? null,
      // A step under way, or cut short by a restart, has no time of its own (yet, or ever).
      elapsed_seconds: rec && !UNTIMED.has(rec.status) ? rec.elapsed_ms / 1000 : null,
      output_port: rec?.output_ports[0] ?? null,
      inputs: rec ? inputsOf(st.step_type, st.config, r.pipeline_data) : {},
      outputs: rec ? outputsOf(st.step_type, r.pipeline_data) : {},
      error: rec?.error ?? null,
      warning: rec?.warning ?? null,
      receipts: rec?.receipts ?? [],
      trace: rec?.trace ?? null,
      done: rec?.done ?? [],
      images: (rec && frames.images.get(rec)) ?? [],
    };
  });
  return {
    id: r.id,
    rule_id: r.rule_id,
    rule_name: r.rule_name,
    status: r.status,
    trigger_type: r.trigger_type,
    trigger_summary: summary(r),
    ...handStartFields(r),
    trigger_context: r.trigger_context,
    frames: frames.frames,
    started_at: r.started_at,
    completed_at: r.completed_at,
    resume_at: r.resume_at,
    graph: r.graph,
    timeline,
    path: runPath(r),
    activated_ports: r.activated_ports,
    skipped_nodes: r.skipped_nodes,
    outputs: r.pipeline_data,
    errors: r.errors,
    warnings: runWarnings(r),
    can_cancel: r.status === "running" || r.status === "waiting",
    can_rerun: true,
  };
}

type StepStatus = StepRecord["status"] | "skipped" | "pending";

function stepStatus(r: ExecutionRow, rec: StepRecord | undefined): StepStatus {
  if (rec) return rec.status;
  return ENDED.has(r.status) ? "skipped" : "pending";
}

/** A canvas node's part in the run: what the editor colours it as, and its status text. */
export interface PathNode {
  node_id: string;
  state: "fired" | "passed" | StepStatus;
  text: string;
}

/** Where the run went on the rule's tab: nodes with their state, output ports taken, the node to show. */
export interface RunPath {
  tab_id: string;
  nodes: PathNode[];
  /** Links the run sent along: the source node and the index of its output port. */
  links: Array<{ source: string; port: number }>;
  /** The node a person wants to look at: where the run waits or failed, else the last that ran. */
  focus: string | null;
}

export function runPath(r: ExecutionRow): RunPath {
  const g: GraphSnapshot = r.graph;
  const nodes: PathNode[] = [];
  const links: RunPath["links"] = [];
  if (g.trigger_node_id) {
    nodes.push({ node_id: g.trigger_node_id, state: "fired", text: handStartWords(r) ?? `fired (${r.trigger_type})` });
    links.push({ source: g.trigger_node_id, port: 0 });
  }
  // Filters run before a run exists: a run means each of them let it through.
  for (const c of g.contexts ?? []) {
    if (!c.node_id) continue;
    nodes.push({ node_id: c.node_id, state: "passed", text: "passed" });
    links.push({ source: c.node_id, port: 0 });
  }
  const recorded = new Map(r.step_records.map((s) => [s.step_id, s]));
  let focus: string | null = null;
  for (const st of g.steps) {
    const rec = recorded.get(st.id);
    const state = stepStatus(r, rec);
    nodes.push({ node_id: st.node_id, state, text: stateText(state, rec, r.resume_at) });
    if (rec && (state === "waiting" || state === "failed" || state === "interrupted")) focus = st.node_id;
  }
  const ports = stepPortIndexes(g);
  for (const a of r.activated_ports) {
    const at = a.lastIndexOf(":");
    const link = ports.get(a.slice(0, at))?.(a.slice(at + 1));
    if (link) links.push(link);
  }
  if (!focus) {
    const last = r.step_records[r.step_records.length - 1];
    focus = last ? (g.steps.find((s) => s.id === last.step_id)?.node_id ?? null) : g.trigger_node_id;
  }
  return { tab_id: g.tab_id, nodes, links, focus };
}

/** `step id → port name → link`, from the step types' declared output ports. */
function stepPortIndexes(g: GraphSnapshot): Map<string, (port: string) => RunPath["links"][number] | null> {
  return new Map(
    g.steps.map((st) => {
      const names = stepSpecByType(st.step_type)?.outputPorts ?? ["main"];
      return [String(st.id), (port: string) => (names.indexOf(port) >= 0 ? { source: st.node_id, port: names.indexOf(port) } : null)];
    }),
  );
}

function stateText(state: StepStatus, rec: StepRecord | undefined, resumeAt: string | null): string {
  if (!rec) return state;
  const ms = `${rec.elapsed_ms < 10 ? rec.elapsed_ms.toFixed(1) : Math.round(rec.elapsed_ms)} ms`;
  if (state === "waiting") return resumeAt ? `waiting until ${resumeAt.slice(11, 16)} UTC` : "waiting";
  if (state === "failed") return `failed: ${rec.error ?? "error"}`.slice(0, 60);
  if (state === "interrupted") return "interrupted by a restart";
  if (state === "running") return "running";
  const port = rec.output_ports[0];
  return `${rec.warning ? "⚠ " : ""}ran ${ms}${port && port !== "main" ? ` → ${port}` : ""}`;
}

/**
 * What a step read: the pipeline_data keys its templates and conditions refer to, as they
 * stand in the run's data (a later step may have changed one; the run's data is all we keep).
 */
function inputsOf(stepType: string, config: Record<string, unknown>, data: Record<string, unknown>): Record<string, unknown> {
  const spec = stepSpecByType(stepType);
  if (!spec) return {};
  const out: Record<string, unknown> = {};
  for (const ref of inspectTexts(spec, config).references) if (ref.root in data) out[ref.root] = data[ref.root];
  return out;
}

/** The pipeline_data keys a step type declares, as they stand in the run's data. */
function outputsOf(stepType: string, data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of stepSpecByType(stepType)?.outputs ?? []) {
    const root = o.key.split(".")[0];
    if (root in data) out[root] = data[root];
  }
  return out;
}

function summary(r: ExecutionRow): string {
  const t = r.trigger_context;
  const where = [t.sensor_id, t.room_name].filter(Boolean).join(" in ");
  const hand = handStartWords(r);
  if (hand) return `${hand}${r.trigger_type === "manual" ? "" : ` (as a ${r.trigger_type} trigger${where ? ` from ${where}` : ""})`}`;
  return `${r.trigger_type}${where ? ` from ${where}` : ""}`;
}
