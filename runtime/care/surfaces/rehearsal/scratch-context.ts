/**
 * A rehearsal's own household: a SQLite store in memory with the live schema, the live
 * household's rooms, sensors and members copied in, a clock that moves only when the replay
 * moves it, its own event bus and a web app socket no device is connected to. Whatever a
 * rehearsed run writes (runs, alerts, prompts, activities) stays here and is gone when the
 * rehearsal ends.
 */
import { newCareWork, type CareContext } from "../../core/context";
import { ManualClock } from "../../../platform/core/clock";
import { EventBus } from "../../../platform/core/event-bus";
import { openStore, type Store } from "../../../platform/db/store";
import { WebAppHub } from "../../../platform/ws/webapp-hub";
import { copyRoomsInto } from "../../../household/rooms/rooms.service";
import { copySensorsInto } from "../../../household/sensors/sensors.service";
import { copyPersonsInto } from "../../../household/persons/persons.service";
import { borrowMediaObjects } from "../../../household/media/media-objects";
import { directFlowSource, FlowWriter, type DeployChecker } from "../../core/rules/flow-writer";

export interface Scratch {
  ctx: CareContext;
  clock: ManualClock;
  close(): Promise<void>;
}

/** The rehearsed flows were checked by the live deploy gate before they came here. */
const accepted: DeployChecker = async () => ({ refused: [], warnings: [] });

export async function openScratch(live: CareContext, startMs: number): Promise<Scratch> {
  const store: Store = await openStore("sqlite::memory:", live.dataDir);
  try {
    await copyRoomsInto(live.db, store.db);
    await copySensorsInto(live.db, store.db);
    await copyPersonsInto(live.db, store.db);
  } catch (err) {
    await store.close();
    throw err;
  }
  // Frames a recorded trigger names are read where the live instance keeps them (with a cluster, the shared database).
  borrowMediaObjects(store.db, live);
  const clock = new ManualClock(startMs);
  const settings = structuredClone(live.settings);
  settings.journal.enabled = false;
  // Quieter than live (warnings only), never louder: a silent live logger stays silent.
  const log = live.log.child({ rehearsal: true }, { level: live.log.levelVal > live.log.levels.values.warn ? live.log.level : "warn" });
  const now = () => new Date(clock.now()).toISOString();
  const ctx: CareContext = {
    db: store.db,
    dialect: store.dialect,
    clock,
    log,
    settings,
    keys: live.keys,
    bus: new EventBus(),
    dataDir: live.dataDir,
    work: newCareWork(),
    startedAt: startMs,
    webapp: new WebAppHub(
      () => live.keys,
      log,
      () => settings.websocket,
      clock,
    ),
    flows: new FlowWriter(store.db, directFlowSource(store.db, now, accepted), accepted),
  };
  return {
    ctx,
    clock,
    close: async () => {
      await ctx.webapp.close();
      await store.close();
    },
  };
}
