/** The shape of the generated registry and lookups over it. */
import type { ChannelHandler, FilterHandler, StepHandler } from "./handler-types";
import type { ChannelSpec, FilterSpec, NodeKind, NodeSpec, StepSpec } from "./types";
import type { DeviceEntryHandler, DeviceSpec, DeviceStageHandler } from "./device-types";

/* eslint-disable @typescript-eslint/no-explicit-any -- a registry holds handlers of every config type */
export interface NodeRegistry {
  steps: ReadonlyArray<{ spec: StepSpec; handler?: StepHandler<any> }>;
  filters: ReadonlyArray<{ spec: FilterSpec; handler?: FilterHandler<any> }>;
  channels: ReadonlyArray<{ spec: ChannelSpec; handler?: ChannelHandler<any> }>;
  /** The Devices tab's nodes (device-types.ts): not rule steps, so not in `allSpecs`. */
  devices: ReadonlyArray<{ spec: DeviceSpec; handler?: DeviceEntryHandler<any> | DeviceStageHandler<any> }>;
}

export const allSpecs = (r: NodeRegistry): NodeSpec[] => [...r.steps, ...r.filters, ...r.channels].map((e) => e.spec);

export function findSpec(r: NodeRegistry, kind: NodeKind, type: string): NodeSpec | undefined {
  const list = kind === "step" ? r.steps : kind === "filter" ? r.filters : r.channels;
  return list.find((e) => e.spec.type === type)?.spec;
}

/**
 * A node type is ready when it has a handler and is not `pending`. A pending type with a
 * handler only degrades (empty results and a warning saying why): a rule that holds one
 * still runs, but the palette marks it, the catalogs list it unavailable and a deploy refuses
 * it, so nobody mistakes it for the feature.
 */
export function isAvailable(r: NodeRegistry, spec: NodeSpec): boolean {
  const list: ReadonlyArray<{ spec: NodeSpec; handler?: unknown }> = spec.kind === "step" ? r.steps : spec.kind === "filter" ? r.filters : r.channels;
  return !spec.pending && list.some((e) => e.spec === spec && e.handler !== undefined);
}

/** Why a type cannot run, for catalogs and for the error when it is asked to. */
export const unavailableReason = (spec: NodeSpec): string => `${spec.kind} type '${spec.type}' cannot run yet: it needs ${spec.pending ?? "a handler"}`;
