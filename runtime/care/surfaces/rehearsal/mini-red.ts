/**
 * A message router for one rule tab, standing in for Node-RED in a rehearsal: Node-RED is one
 * runtime per process and runs the live flows, so a rehearsed rule cannot be deployed there.
 * It does what the pipeline engine relies on, the way Node-RED 4.1 does it: a node's `send`
 * delivers along the wires of each output port (the first target gets the message, later
 * ones a copy), each delivery passes the `preDeliver` hooks (false halts it) and reaches the
 * target's input on a later turn of the event loop, and a node's `done` runs the
 * `onComplete` hooks. Trigger nodes pass their message on; care nodes hand it to the engine.
 */
import type { RedHookEvent, RedHooks } from "../../../platform/nodered/red";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import type { RedMessage, RedNodeConfig, RedNodeInstance } from "../../../../nodes/_kit/node-red/red-api";
import { isTriggerNode, specOfNode } from "../../core/rules/care-types";
import type { EngineRed } from "../../core/pipeline/engine/engine";
import { currentRun } from "./rehearsal-services";

type Out = RedMessage | Array<RedMessage | null> | null;
type HookKind = "preDeliver" | "onComplete";
type Hook = (event: RedHookEvent) => boolean | void;

/** What a care node's input is handed to (the engine's `onInput`). */
export interface InputSink {
  onInput(node: RedNodeInstance, config: RedNodeConfig, msg: RedMessage, send: (m: Out & object) => void, done: (err?: Error) => void): void;
}

class MiniNode implements RedNodeInstance {
  readonly id: string;
  readonly z?: string;
  readonly name?: string;
  readonly type: string;

  constructor(
    private readonly red: MiniRed,
    readonly config: RedNodeConfig,
    readonly wires: string[][],
  ) {
    this.id = config.id;
    this.z = config.z;
    this.name = config.name;
    this.type = config.type;
  }

  receive(msg: RedMessage): void {
    this.red.input(this, msg);
  }

  send(out: Out): void {
    this.red.route(this, out);
  }

  on(): void {
    // Inputs come from the router itself; no listeners are kept.
  }

  status(): void {}

  error(err: string | Error): void {
    this.red.errors.push(`${this.name || this.type}: ${err instanceof Error ? err.message : err}`);
  }

  warn(): void {}
}

const copyOf = (msg: RedMessage): RedMessage => structuredClone(msg);

export class MiniRed implements EngineRed {
  private readonly nodes = new Map<string, MiniNode>();
  private readonly hookFns: Record<HookKind, Map<string, Hook>> = { preDeliver: new Map(), onComplete: new Map() };
  private sink: InputSink | null = null;
  /** Errors nodes reported (a rehearsal shows them with its runs). */
  readonly errors: string[] = [];

  /** The tab's nodes: its trigger and care nodes are routed; comments and groups are ignored. */
  constructor(tabNodes: readonly FlowNode[]) {
    for (const n of tabNodes) {
      if (!isTriggerNode(n.type) && !specOfNode(n.type)) continue;
      const wires = Array.isArray(n.wires)
        ? (n.wires as unknown[]).map((w) => (Array.isArray(w) ? w.filter((t): t is string => typeof t === "string") : []))
        : [];
      this.nodes.set(n.id, new MiniNode(this, n as RedNodeConfig, wires));
    }
  }

  attach(sink: InputSink): void {
    this.sink = sink;
  }

  hooks(): RedHooks {
    return {
      add: (id, fn) => {
        const [kind, label] = id.split(".");
        if (kind === "preDeliver" || kind === "onComplete") this.hookFns[kind].set(label ?? "", fn);
      },
      remove: (id) => {
        const [kind, label] = id.split(".");
        for (const k of ["preDeliver", "onComplete"] as const) if (kind === "*" || kind === k) this.hookFns[k].delete(label ?? "");
      },
    };
  }

  getNode<T>(id: string): T | undefined {
    return this.nodes.get(id) as T | undefined;
  }

  /** A rehearsal's flow is built once and never redeployed. */
  flowsRunning(): Promise<void> {
    return Promise.resolve();
  }

  /** A node's input: triggers pass it on, care nodes go to the engine; `done` completes it. */
  input(node: MiniNode, msg: RedMessage): void {
    const done = (err?: Error) => {
      if (err) this.errors.push(`${node.name || node.type}: ${err.message}`);
      for (const fn of this.hookFns.onComplete.values()) fn({ msg, node: { id: node.id } });
    };
    if (isTriggerNode(node.type) || !this.sink) {
      node.send(msg);
      return done();
    }
    // Services the handler calls know which rehearsed run they act for.
    const execution_id = (msg._careflow as { execution_id?: number } | undefined)?.execution_id;
    const sink = this.sink;
    if (execution_id === undefined) return sink.onInput(node, node.config, msg, (m) => node.send(m), done);
    currentRun.run({ execution_id }, () => sink.onInput(node, node.config, msg, (m) => node.send(m), done));
  }

  /** `send` of a node: each port's message along that port's wires. */
  route(node: MiniNode, out: Out): void {
    if (out === null || out === undefined) return;
    const ports = Array.isArray(out) ? out : [out];
    ports.forEach((msg, port) => {
      if (!msg) return;
      (node.wires[port] ?? []).forEach((targetId, i) => {
        const target = this.nodes.get(targetId);
        if (!target) return;
        const m = i === 0 ? msg : copyOf(msg);
        const event: RedHookEvent = { msg: m, source: { id: node.id, port }, destination: { id: targetId } };
        for (const fn of this.hookFns.preDeliver.values()) if (fn(event) === false) return;
        setImmediate(() => this.input(target, m));
      });
    });
  }
}
