/** The slice of Node-RED's node API our node module uses (the published types are stale). */
import type { DeviceKind, DeviceReply, DeviceRequest, DeviceServices } from "../device-types";

export interface RedNodeInstance {
  id: string;
  send(msg: RedMessage | Array<RedMessage | null>): void;
  z?: string;
  name?: string;
  on(event: "input", listener: (msg: RedMessage, send: (msg: RedMessage | Array<RedMessage | null>) => void, done: (err?: Error) => void) => void): void;
  on(event: "close", listener: (removed: boolean, done: () => void) => void): void;
  status(status: { fill?: "red" | "green" | "yellow" | "blue" | "grey"; shape?: "ring" | "dot"; text?: string } | Record<string, never>): void;
  error(err: string | Error, msg?: RedMessage): void;
  warn(text: string): void;
}

export type RedMessage = Record<string, unknown> & { _msgid?: string };

export interface RedNodeConfig {
  id: string;
  type: string;
  z?: string;
  name?: string;
  config?: Record<string, unknown>;
  config_version?: number;
  negate?: boolean;
  [k: string]: unknown;
}

export interface RedNodeApi {
  nodes: {
    createNode(node: object, config: RedNodeConfig): void;
    registerType(type: string, ctor: (this: RedNodeInstance, config: RedNodeConfig) => void): void;
  };
  settings: { careflow?: CareflowNodeServices };
}

/** Where device-in nodes register the endpoint they serve; the app's `/api/v1/device/*` routes dispatch to them. */
export interface DeviceEndpointRegistry {
  register(kind: DeviceKind, nodeId: string, serve: (request: DeviceRequest) => Promise<DeviceReply>): () => void;
}

/**
 * What the host hands our nodes through `RED.settings.careflow`. The pipeline engine, when
 * present, takes over a care node's input; without it care nodes refuse to run.
 */
export interface CareflowNodeServices {
  /** The Devices tab's nodes: the app's device services and its endpoint registry. */
  devices?: { services: DeviceServices; endpoints: DeviceEndpointRegistry };
  engine?: {
    onInput(
      node: RedNodeInstance,
      config: RedNodeConfig,
      msg: RedMessage,
      send: (msg: RedMessage | Array<RedMessage | null>) => void,
      done: (err?: Error) => void,
    ): void;
  };
}
