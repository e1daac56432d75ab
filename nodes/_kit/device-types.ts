/**
 * Device nodes: the nodes of the "Devices" system tab, through which cameras and the bedside
 * terminal reach the service. A `care-device-in` node serves one device endpoint; the stages
 * wired after it (rotate, label filter, store, aggregate, terminal) each take a message and
 * give back a result: a reply to the device, a message for the next stage, or both. Like care
 * nodes, their handlers never import Node-RED or `runtime/`: they get a `DeviceServices`
 * context, implemented by the app.
 */
import type { z } from "zod";

export type DeviceKind = "camera" | "terminal";

/**
 * The most pixels a camera frame may have to be decoded (rotated): the cap every other image
 * path has (e-ink backgrounds, the face engine). A 4K camera sends 8.3 million; a frame of 40
 * million decodes to 120 MB, a 12000x12000 one to 432 MB (issue 51 item 2).
 */
export const MAX_FRAME_PIXELS = 40_000_000;

/** What the device is answered: the spec's `{"detail"}` body for errors, the result body otherwise. */
export interface DeviceReply {
  status: number;
  body: Record<string, unknown>;
}

/** The device that posted, as its key says. */
export interface DeviceIdentity {
  kind: DeviceKind;
  sensor_id: string;
  /** The device key's name (or its sensor id): who acknowledged an alert from a terminal. */
  name: string;
  room_name: string | null;
}

/** A camera frame as the camera posted it, on its way through the Devices tab (stored, it is a `CameraFrame` of care-services). */
export interface PostedFrame {
  bytes: Buffer;
  labels: string[];
  boxes: number[][];
  /** What the camera said about itself; kept for the debug sidebar and the activity view. */
  camera: { code: number | null; name: string | null; type: number | null; count: number | null; resolution: number[] | null };
  received_at: string;
  /** Set by the store stage. */
  stored?: { media_id: number; object_name: string; path: string };
  rotated?: number;
}

export interface TerminalInput {
  /** "button" for a press, "command" for a command. */
  event: "button" | "command";
  button: "single" | "double" | "long" | null;
  command: string | null;
  args: string[];
  /** An explicit alert action from the device; otherwise the press decides (the terminal node's config). */
  action: "dismiss" | "assist" | "none" | null;
  alert_id: number | null;
  received_at: string;
}

/** The payload a device message carries between stages. */
export type DevicePayload = { kind: "camera"; frame: PostedFrame } | { kind: "terminal"; input: TerminalInput };

export interface DeviceMessage {
  device: DeviceIdentity;
  payload: DevicePayload;
}

/** A stage's outcome: answer the device (at most once per request), pass a message on, or both. */
export interface DeviceResult {
  reply?: DeviceReply;
  next?: DeviceMessage;
}

export interface DeviceLog {
  debug(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export interface CameraOptions {
  rotate?: 90 | 180 | 270;
  label_filter?: { labels: string[]; mode: "any" | "all" };
}

export interface AlertActionResult {
  alert_id: number;
  action: "dismiss" | "assist";
  level: string;
}

/** What device handlers may ask of the app. */
export interface DeviceServices {
  log: DeviceLog;
  now(): string;
  /** `cameras.<sensor_id>` from the settings. */
  cameraOptions(sensorId: string): CameraOptions;
  /** A picture's size from its header, nothing decoded (null when unreadable): checked against `MAX_FRAME_PIXELS` first. */
  frameSize(bytes: Buffer): Promise<{ width: number; height: number } | null>;
  /** Turns a JPEG clockwise and re-encodes it; refuses (throws) one larger than `MAX_FRAME_PIXELS`. */
  rotateJpeg(bytes: Buffer, degrees: 90 | 180 | 270): Promise<Buffer>;
  /** Stores a frame in the media store (content-addressed, a media row per frame). */
  storeFrame(device: DeviceIdentity, frame: PostedFrame): Promise<{ media_id: number; object_name: string; path: string }>;
  /** Hands a stored frame to the sensor's aggregator (window, batch size, cooldown). */
  aggregate(device: DeviceIdentity, frame: PostedFrame): Promise<{ batch: "opened" | "added" | "flushed" | "cooldown" | "off" }>;
  /** Acts on an alert (the newest open one when `alertId` is null); null when there is none open. */
  actOnNewestAlert(action: "dismiss" | "assist", actor: string, alertId: number | null): Promise<AlertActionResult | null>;
  /** A press or command from a device: `sensor_event` rules of its sensor fire. */
  publishDeviceEvent(device: DeviceIdentity, input: TerminalInput): void;
}

/** The raw request a device-in node is handed, once the device's key has been checked. */
export interface DeviceRequest {
  device: DeviceIdentity;
  body: unknown;
}

export interface DeviceContext<C> {
  config: C;
  services: DeviceServices;
}

export type DeviceEntryHandler<C> = (ctx: DeviceContext<C>, request: DeviceRequest) => Promise<DeviceResult> | DeviceResult;
export type DeviceStageHandler<C> = (ctx: DeviceContext<C>, message: DeviceMessage) => Promise<DeviceResult> | DeviceResult;

export interface DeviceSpec<S extends z.ZodObject = z.ZodObject> {
  kind: "device";
  /** `in` for the entry node; the stage's name otherwise. */
  type: string;
  role: "entry" | "stage";
  displayName: string;
  description: string;
  config: S;
  version: number;
  /** The device kinds whose messages this stage handles; others pass through untouched. */
  handles: readonly DeviceKind[];
  outputs: readonly string[];
  palette: { color: string; icon: string };
}

/** The Node-RED type id of a device node: `care-device-in`, `care-device-rotate`, ... */
export const deviceNodeRedType = (spec: Pick<DeviceSpec, "type">): string => `care-device-${spec.type}`;

export const defineDevice = <S extends z.ZodObject>(spec: DeviceSpec<S>): DeviceSpec<S> => spec;

/** Whether a Node-RED type is one of the Devices tab's node types (not a rule's care node). */
export const isDeviceNodeType = (type: string): boolean => type.startsWith("care-device-");
