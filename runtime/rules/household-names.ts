/** The sensors, rooms and persons a rule may name, read through their own services. */
import type { AppContext } from "../context";
import { nameKey } from "../core/name-key";
import { listPersons } from "../persons/persons.service";
import { listRooms } from "../rooms/rooms.service";
import { listSensors } from "../sensors/sensors.service";
import type { HouseholdNames } from "./rule-tab-checks";

export async function readHouseholdNames(ctx: AppContext): Promise<HouseholdNames> {
  const [sensors, rooms, persons] = await Promise.all([listSensors(ctx), listRooms(ctx), listPersons(ctx)]);
  return {
    sensors: new Set(sensors.map((s) => s.sensor_id)),
    // Rooms by their name key; `checkRuleTab` looks a referenced room up by its key too.
    rooms: new Set(rooms.map((r) => nameKey(r.name))),
    persons: new Set(persons.map((p) => p.person_id)),
  };
}
