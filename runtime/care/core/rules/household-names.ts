/** The sensors, rooms and persons a rule may name, read through their own services. */
import type { CareContext } from "../context";
import { nameKey } from "../../../platform/core/name-key";
import { listPersons } from "../../../household/persons/persons.service";
import { listRooms } from "../../../household/rooms/rooms.service";
import { listSensors } from "../../../household/sensors/sensors.service";
import type { HouseholdNames } from "./rule-tab-checks";

export async function readHouseholdNames(ctx: CareContext): Promise<HouseholdNames> {
  const [sensors, rooms, persons] = await Promise.all([listSensors(ctx), listRooms(ctx), listPersons(ctx)]);
  return {
    sensors: new Set(sensors.map((s) => s.sensor_id)),
    // Rooms by their name key; `checkRuleTab` looks a referenced room up by its key too.
    rooms: new Set(rooms.map((r) => nameKey(r.name))),
    persons: new Set(persons.map((p) => p.person_id)),
  };
}
