/** The slice of Node-RED's node API our node module uses (the published types are stale). */
export interface RedNodeInstance {
  id: string;
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

/**
 * What the host hands our nodes through `RED.settings.careflow`. The pipeline engine, when
 * present, takes over a care node's input; without it care nodes refuse to run.
 */
export interface CareflowNodeServices {
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
