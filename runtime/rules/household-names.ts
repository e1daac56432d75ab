/** The sensors, rooms and persons a rule may name, read through their own services. */
import type { AppContext } from "../context";
import { listPersons } from "../persons/persons.service";
import { listRooms } from "../rooms/rooms.service";
import { listSensors } from "../sensors/sensors.service";
import type { HouseholdNames } from "./rule-tab-checks";

export async function readHouseholdNames(ctx: AppContext): Promise<HouseholdNames> {
  const [sensors, rooms, persons] = await Promise.all([listSensors(ctx), listRooms(ctx), listPersons(ctx)]);
  return {
    sensors: new Set(sensors.map((s) => s.sensor_id)),
    rooms: new Set(rooms.map((r) => r.name.trim().toLowerCase())),
    persons: new Set(persons.map((p) => p.person_id)),
  };
}
