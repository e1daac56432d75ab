/**
 * A small typed facade over the parts of Node-RED 4.1 we use; `@types/node-red` is stale
 * for 4.1, so we declare what we call instead of casting at each use.
 */
import type { EventEmitter } from "node:events";
import type { RequestHandler } from "express";

export interface RedEvents extends EventEmitter {
  on(event: "flows:started" | "runtime-event", listener: (payload: { id?: string; payload?: { error?: string; type?: string } }) => void): this;
}

export interface RedRuntimeFlows {
  setFlows(opts: { flows?: { flows: unknown[]; rev?: string }; deploymentType?: "full" | "nodes" | "flows" | "reload"; user?: unknown }): Promise<{ rev: string }>;
  getFlows(opts: { user?: unknown }): Promise<{ flows: unknown[]; rev: string }>;
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
  version(): string;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const loadRed = (): Red => require("node-red") as Red;
