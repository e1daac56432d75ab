/**
 * What every service and handler receives: the store, the clock, the logger, the settings
 * and the event bus. Built once by the app factory; tests build it with fakes.
 */
import type { Knex } from "knex";
import type { Settings } from "../settings";
import type { KeyStore } from "./auth/key-store";
import type { Clock } from "./core/clock";
import type { EventBus } from "./core/event-bus";
import type { Logger } from "./core/logger";
import type { Dialect } from "./db/store";
import type { FlowWriter } from "./rules/flow-writer";
import type { RuleFirer, RunEngine } from "./pipeline/engine/types";
import type { WebAppHub } from "./ws/webapp-hub";

export interface AppContext {
  db: Knex;
  dialect: Dialect;
  clock: Clock;
  log: Logger;
  settings: Settings;
  keys: KeyStore;
  bus: EventBus;
  dataDir: string;
  /** Reads and writes the flows; rules, steps, edges and contexts live there. */
  flows: FlowWriter;
  /** The web app's socket (`/ws`): popups, prompts and alert updates go out here. */
  webapp: WebAppHub;
  /** Runs rules; present when Node-RED is embedded. */
  engine?: RunEngine;
  /** Fires rules through the gates; the engine sets it when it starts (webhooks call it). */
  firer?: RuleFirer;
}
