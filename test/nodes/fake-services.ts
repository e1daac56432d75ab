/**
 * A fake of the care services for handler tests. The pure capabilities (names, time in a
 * chosen zone, templates, conditions, presence's derivations) are the runtime's own
 * functions, since a test of a handler should not re-invent the condition language; every
 * capability that reaches the store, a socket or a server throws "not faked" unless the
 * test gives it. A test that needs the real store uses `careServices()` over it instead.
 */
import type { CareServices } from "../../nodes/_kit/care-services";
import { sameName } from "../../runtime/platform/core/name-key";
import { compileCondition, resolvePath } from "../../runtime/care/core/language/conditions";
import { renderTemplate } from "../../runtime/care/core/language/templates";
import { anchorDailyWindow, timeOfDay } from "../../runtime/household/tracking/daily-window";
import { localParts, startOfLocalDay } from "../../runtime/household/tracking/local-time";
import { homeStates, resolvePersonId, unknownPresence } from "../../runtime/household/tracking/presence";

/** Any method of any capability may be given; the rest keep their defaults. */
export type FakeParts = { [K in keyof CareServices]?: Partial<CareServices[K]> };

export interface FakeOptions {
  /** The household's zone; UTC unless said. */
  timezone?: string;
}

/** A capability whose every method throws, naming the method the test did not fake. */
function notFaked<K extends keyof CareServices>(capability: K): CareServices[K] {
  return new Proxy({} as CareServices[K], {
    get: (_target, method) => () => {
      throw new Error(`${capability}.${String(method)} is not faked in this test`);
    },
  });
}

function defaults(timezone: string): CareServices {
  return {
    names: { same: sameName },
    time: {
      zone: () => timezone,
      localParts: (ms) => localParts(ms, timezone),
      startOfLocalDay: (ms) => startOfLocalDay(ms, timezone),
      timeOfDay,
      dailyWindow: (start, end, nowMs) => anchorDailyWindow(start, end, nowMs, timezone),
    },
    templates: { render: renderTemplate },
    conditions: { compile: compileCondition, resolvePath },
    presence: merge(notFaked("presence"), { unknown: unknownPresence, personIdFrom: resolvePersonId, homeStates }),
    activities: notFaked("activities"),
    signals: notFaked("signals"),
    tracking: notFaked("tracking"),
    notify: notFaked("notify"),
    prompts: notFaked("prompts"),
    webapp: notFaked("webapp"),
    models: notFaked("models"),
    eink: notFaked("eink"),
    media: notFaked("media"),
    scene: notFaked("scene"),
    memory: notFaked("memory"),
    hub: notFaked("hub"),
    chat: notFaked("chat"),
    identity: notFaked("identity"),
    knowledge: notFaked("knowledge"),
  };
}

/** Care services with `parts` over the defaults, capability by capability. */
export function fakeServices(parts: FakeParts = {}, opts: FakeOptions = {}): CareServices {
  return withParts(defaults(opts.timezone ?? "UTC"), parts);
}

/** `base` with some methods replaced (e.g. a store that fails), the rest kept. */
export function withParts(base: CareServices, parts: FakeParts): CareServices {
  const merged = { ...base };
  const put = <K extends keyof CareServices>(key: K): void => {
    merged[key] = merge(base[key], parts[key]);
  };
  for (const key of Object.keys(parts) as Array<keyof CareServices>) put(key);
  return merged;
}

function merge<T extends object>(base: T, part: Partial<T> | undefined): T {
  if (!part) return base;
  // A proxy's methods are not own properties: wrap it so what is not given still throws.
  return new Proxy(base, { get: (target, key, receiver) => (key in part ? part[key as keyof T] : Reflect.get(target, key, receiver)) });
}
