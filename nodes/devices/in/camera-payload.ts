/**
 * The spec's camera device payload ("Camera device payload"), checked field by field so a
 * camera that sends something wrong is told which field. Fields the spec does not name are
 * ignored: cameras add their own, and none of them reaches the store.
 */
import { z } from "zod";

/** A decoded frame larger than this is refused (413): a 640x480 JPEG is ~50 KB, a 4K one ~2 MB. */
export const MAX_FRAME_BYTES = 10 * 1024 * 1024;

/** A character base64 never has; `=` only as padding at the end (checked apart: far cheaper than an anchored pattern over 50 KB). */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
const PADDING = /=[^=]|={3,}/;
const DATA_URL = /^data:image\/jpe?g;base64,/i;

const int = z.number().int();
const shortText = (max: number) => z.string().max(max);

export const cameraPayloadSchema = z.object({
  code: int.nullable().optional(),
  data: z.object({
    image: z.string().min(1, "a base64 JPEG is required"),
    labels: z.array(shortText(100)).max(200).default([]),
    boxes: z.array(z.array(z.number()).min(4).max(6)).max(500).default([]),
    count: int.min(0).nullable().optional(),
    perf: z
      .array(z.array(z.union([z.number(), z.string().max(100)])).max(10))
      .max(50)
      .optional(),
    resolution: z.array(int.min(0)).length(2).nullable().optional(),
  }),
  name: shortText(200).nullable().optional(),
  type: int.nullable().optional(),
});

export type CameraPayload = z.output<typeof cameraPayloadSchema>;

/** The image's bytes, or what is wrong with it (the field is named for the device). */
export function decodeImage(image: string): { bytes: Buffer } | { status: 413 | 422; detail: string } {
  const text = image.replace(DATA_URL, "").replace(/\s+/g, "");
  if (text.length === 0) return { status: 422, detail: "data.image: a base64 JPEG is required" };
  if (text.length % 4 !== 0 || NOT_BASE64.test(text) || PADDING.test(text)) return { status: 422, detail: "data.image: not valid base64" };
  if ((text.length / 4) * 3 > MAX_FRAME_BYTES + 2) return { status: 413, detail: `data.image: larger than ${MAX_FRAME_BYTES} bytes` };
  const bytes = Buffer.from(text, "base64");
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return { status: 422, detail: "data.image: not a JPEG image" };
  return { bytes };
}
