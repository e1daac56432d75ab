/**
 * The shapes every care node type shares. A node type is one typed spec (this file's
 * `NodeSpec`) plus, when its behaviour exists, one handler. Handlers never import Node-RED.
 */
import type { z } from "zod";
import type { Settings } from "../../settings";

export type NodeKind = "step" | "filter" | "channel";
export type StepCategory = "perception" | "reasoning" | "action" | "flow";

/** A pure function from one config version to the next. */
export type ConfigMigration = (config: Record<string, unknown>) => Record<string, unknown>;

/** What a step writes into pipeline_data, for autocomplete, docs and output_schema. */
export interface OutputKey {
  key: string;
  type: string;
  description: string;
}

export interface NodeSpecBase<S extends z.ZodObject = z.ZodObject> {
  kind: NodeKind;
  /** The spec's type name (`condition`, `room`, `eink`); never renamed once released. */
  type: string;
  displayName: string;
  description: string;
  config: S;
  /** Current config version; `migrations[n]` turns version n into n+1. */
  version: number;
  migrations?: Readonly<Record<number, ConfigMigration>>;
  /**
   * Other spellings of fields the spec accepts at every version (`kind` for `kinds`), turned
   * into this type's own before validation at every gate; stored configs use the own names.
   */
  aliases?: ConfigMigration;
  /**
   * What this type still lacks, said when it refuses to run (e.g. "the pipeline engine").
   * A type runs only once it has a handler; remove this when the handler lands.
   */
  pending?: string;
  deprecated?: { replacedBy: string };
  /**
   * Config fields that may be empty while a caregiver edits, but must be filled before
   * the node can run; rule validation and imports report the empty ones.
   */
  requiredToRun?: readonly string[];
  palette: { color: string; icon: string };
}

export interface StepSpec<S extends z.ZodObject = z.ZodObject> extends NodeSpecBase<S> {
  kind: "step";
  category: StepCategory;
  outputPorts: readonly string[];
  outputs: readonly OutputKey[];
}

export interface FilterSpec<S extends z.ZodObject = z.ZodObject> extends NodeSpecBase<S> {
  kind: "filter";
}

/** The `notifications` settings, which hold a channel's household-wide defaults (`notifications.webhook`, ...). */
export type NotificationSettings = Settings["notifications"];

/** A notification step's options for the channels (`eink_targets`, `webhook_url`, ...), by key. */
export type ChannelOptions = Readonly<Record<string, unknown>>;

/** A channel's part of the notification step's config (issue 48 §5: a channel owns its fields). */
export interface ChannelStepFields {
  /** Where the step lists the channel: the senior's own screen first, the integrators' webhook last. */
  order: number;
  /** The channel's own words, the step's `<type>_template` field; left out: it says the message. */
  words?: z.ZodType;
  /**
   * The step's options this channel reads (`eink_targets`, `webhook_url`), by key. They are kept
   * with the send (and its alert), so an escalation re-send uses the same options. Two channels
   * may share an option only as the same field.
   */
  options?: Readonly<Record<string, z.ZodType>>;
}

export interface ChannelSpec<S extends z.ZodObject = z.ZodObject> extends NodeSpecBase<S> {
  kind: "channel";
  /** What this channel adds to the notification step: the step's form, schema and checks are composed from these. */
  step: ChannelStepFields;
  /**
   * The channel's config for one send, from the step's options and the settings; the
   * spec's schema then fills defaults and refuses what is wrong. Without it the channel
   * runs on its defaults.
   */
  configFrom?: (options: ChannelOptions, notifications: NotificationSettings) => Record<string, unknown>;
}

export type NodeSpec = StepSpec | FilterSpec | ChannelSpec;

/** The Node-RED type id a spec is registered under; persisted in users' flows. */
export const nodeRedType = (spec: Pick<NodeSpec, "kind" | "type">): string => (spec.kind === "step" ? `care-${spec.type}` : `care-${spec.kind}-${spec.type}`);

export const TRIGGER_NODE_TYPE = "care-trigger";
