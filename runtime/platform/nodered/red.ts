/**
 * A small typed facade over the parts of Node-RED 4.1 we use; `@types/node-red` is stale
 * for 4.1, so we declare what we call instead of casting at each use.
 */
import type { EventEmitter } from "node:events";
import type { RequestHandler } from "express";

export interface RedEvents extends EventEmitter {
  on(
    event: "flows:stopping" | "flows:started" | "runtime-event",
    listener: (payload: { id?: string; payload?: { error?: string; type?: string } }) => void,
  ): this;
}

export interface RedRuntimeFlows {
  setFlows(opts: {
    flows?: { flows: unknown[]; rev?: string };
    deploymentType?: "full" | "nodes" | "flows" | "reload";
    user?: unknown;
  }): Promise<{ rev: string }>;
  getFlows(opts: { user?: unknown }): Promise<{ flows: unknown[]; rev: string }>;
}

/** A delivery or completion seen by a labelled hook; `msg` is the message travelling. */
export interface RedHookEvent {
  msg: Record<string, unknown>;
  destination?: { id: string; node?: unknown };
  source?: { id: string; port?: number };
  node?: { id: string };
}

export interface RedHooks {
  /** A one-argument hook runs synchronously; returning false halts the message. */
  add(id: string, fn: (event: RedHookEvent) => boolean | void): void;
  remove(id: string): void;
}

export interface Red {
  init(server: EventEmitter, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpAdmin: RequestHandler;
  httpNode: RequestHandler;
  events: RedEvents;
  runtime: { flows: RedRuntimeFlows };
  nodes: { getNode(id: string): unknown };
  hooks: RedHooks;
  version(): string;
}

export const loadRed = (): Red => require("node-red") as Red;
