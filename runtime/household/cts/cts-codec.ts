/**
 * The wire layouts of the continuous-tracking streams, decoded with protobufjs from the
 * `.proto` files kept beside this module (package `continuoustracking.v1`). Decoding never
 * throws past here: a message that is not the layout it claims is a `DecodeFailure`, which
 * the consumer keeps as a dead letter.
 */
import fs from "node:fs";
import path from "node:path";
import type protobuf from "protobufjs";
import { lazyModule } from "../../platform/core/lazy-module";
import type { DecodedDwell, DecodedPresence, DecodedSceneSample, DecodedSignal, DecodedTrackingEvent, DecodedRevision } from "./cts-messages";

const PROTO_FILES = ["tracking.proto", "signals.proto", "scene.proto"];
const PACKAGE = "continuoustracking.v1";

/**
 * The compiled code runs from dist/, the .proto files stay in the source tree (one copy, the
 * repo's): beside this file when run from source, else the source folder relative to dist.
 */
function protoDir(): string {
  const candidates = [path.join(__dirname, "proto"), path.resolve(__dirname, "../../../../runtime/household/cts/proto")];
  const found = candidates.find((d) => fs.existsSync(path.join(d, PROTO_FILES[0])));
  if (!found) throw new Error(`the continuous-tracking .proto files are missing (looked in ${candidates.join(", ")})`);
  return found;
}

// Loaded with the first message: tracking is off in most households.
const protobufjs = lazyModule(() => require("protobufjs") as typeof import("protobufjs"));

let root: protobuf.Root | null = null;
function types(): protobuf.Root {
  if (!root) {
    const dir = protoDir();
    root = new (protobufjs().Root)().loadSync(
      PROTO_FILES.map((f) => path.join(dir, f)),
      { keepCase: true },
    );
  }
  return root;
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, arrays: true };

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

function decodeAs<T>(typeName: string, data: Uint8Array): DecodeResult<T> {
  try {
    const type = types().lookupType(`${PACKAGE}.${typeName}`);
    const message = type.decode(data);
    return { ok: true, value: type.toObject(message, TO_OBJECT) as T };
  } catch (err) {
    return { ok: false, reason: `not a ${typeName}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export const decodeTrackingEvent = (d: Uint8Array) => decodeAs<DecodedTrackingEvent>("TrackingEvent", d);
export const decodeRevision = (d: Uint8Array) => decodeAs<DecodedRevision>("IdentityRevision", d);
export const decodeSignal = (d: Uint8Array) => decodeAs<DecodedSignal>("DementiaSignal", d);
export const decodeSceneSample = (d: Uint8Array) => decodeAs<DecodedSceneSample>("SceneSample", d);
export const decodePresence = (d: Uint8Array) => decodeAs<DecodedPresence>("PresenceEvent", d);
export const decodeDwell = (d: Uint8Array) => decodeAs<DecodedDwell>("DwellEvent", d);

/** Encodes a message of the layout (the fake tracking service and tests publish with it). */
export function encodeMessage(typeName: string, value: Record<string, unknown>): Uint8Array {
  // fromObject converts enum names and decimal-string longs (verify would refuse both).
  const type = types().lookupType(`${PACKAGE}.${typeName}`);
  return type.encode(type.fromObject(value)).finish();
}

/** Epoch milliseconds of a fixed64 nanosecond field (decoded as a decimal string); null for 0 or junk. */
export function nsToMs(ns: string | number | undefined): number | null {
  if (ns === undefined || ns === "" || ns === 0 || ns === "0") return null;
  try {
    const ms = Number(BigInt(ns) / 1_000_000n);
    return Number.isFinite(ms) && ms > 0 ? ms : null;
  } catch {
    return null;
  }
}

/** Nanoseconds as the wire's fixed64 (a decimal string), from epoch milliseconds. */
export const msToNs = (ms: number): string => (BigInt(Math.round(ms)) * 1_000_000n).toString();
