/**
 * What every platform and household service receives: the store, the clock, the logger, the
 * settings, the keys, the event bus, the data dir and the web app's socket. Care services get
 * more (runtime/care/core/context.ts); the app builds both at once (runtime/app/context.ts).
 */
import type { Knex } from "knex";
import type { Settings } from "../../settings";
import type { KeyStore } from "./auth/key-store";
import type { Cluster } from "./cluster/cluster";
import type { Clock } from "./core/clock";
import type { EventBus } from "./core/event-bus";
import type { Logger } from "./core/logger";
import type { Dialect } from "./db/store";
import type { PartsBoard } from "./health/parts-board";
import type { HouseholdAddress } from "./http/household-address";
import type { WebAppHub } from "./ws/webapp-hub";

export interface PlatformContext {
  db: Knex;
  dialect: Dialect;
  clock: Clock;
  log: Logger;
  settings: Settings;
  /** The settings file the app was started with (CAREFLOW_SETTINGS); sections that reload re-read it. */
  settingsFile?: string;
  keys: KeyStore;
  bus: EventBus;
  dataDir: string;
  /** When this app started, on its clock (a store never backed up is missed an hour after the first backup due since). */
  startedAt: number;
  /** The web app's socket (`/ws`): popups, prompts and alert updates go out here. */
  webapp: WebAppHub;
  /** The address the household's devices reach this app at (absent: a context that does not listen). */
  address?: HouseholdAddress;
  /** The instances sharing this store and the leases of the singular jobs (absent: one instance, every lease held). */
  cluster?: Cluster;
  /** Every part's state (issue 44): devices report their contact here, links their ups and downs. */
  parts?: PartsBoard;
}
