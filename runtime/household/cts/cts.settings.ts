/** The `cts` settings section: the continuous-tracking service, its cameras and keyframe store (docs/tracking.md). */
import { z } from "zod";

/** A continuous-tracking camera (`GET /cts/cameras`): its id is the CTS camera id, not a sensor id. */
const ctsCamera = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "an id slug: lowercase letters, digits, '_' or '-'"),
    name: z.string().min(1),
    rtsp_url: z.string().nullable().default(null),
    // The room name its frames are placed in when a tracking event names none.
    location: z.string().min(1).nullable().default(null),
  })
  .strict();

export const ctsSettings = z
  .object({
    enabled: z.boolean().default(false),
    nats_url: z.string().default("nats://127.0.0.1:4222"),
    lock_seconds: z.number().min(0).default(60),
    // Prepended to every subject (`{prefix}.tracking.events`) and stream name; empty on a
    // household, a unique one per test run so runs never share streams or consumers.
    stream_prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]*$/, "letters, digits, '_' or '-'")
      .default(""),
    // Live frames to /ws at most this often per camera.
    live_publish_max_hz: z.number().positive().default(2),
    // Tracking events captured longer ago than this are dropped (the original's 30 s).
    stale_seconds: z.number().positive().default(30),
    // Deliveries of one message before it is given up and kept as a dead letter.
    max_deliver: z.number().int().min(1).max(100).default(5),
    // A message delivered and not acknowledged within this is delivered again (after a crash).
    ack_wait_seconds: z.number().int().min(1).max(3600).default(30),
    cameras: z.array(ctsCamera).default([]),
    // The tracking service's object store (S3-compatible, MinIO) holding scene samples'
    // keyframes; null endpoint: samples are not fetched (docs/tracking.md, "Scene samples").
    keyframes: z
      .object({
        endpoint: z
          .string()
          .url()
          .refine((u) => /^https?:\/\//.test(u) && !u.endsWith("/"), "an http(s) URL without a trailing slash")
          .nullable()
          .default(null),
        bucket: z.string().min(3).max(63).default("keyframes"),
        access_key: z.string().default(""),
        secret_key: z.string().default(""),
        region: z.string().min(1).default("us-east-1"),
        timeout_seconds: z.number().positive().default(10),
      })
      .strict()
      .prefault({}),
    // Scene samples fetched and analysed at once, and how many may wait; beyond that dropped.
    scene_samples: z
      .object({
        max_in_flight: z.number().int().min(1).max(32).default(2),
        max_queued: z.number().int().min(0).max(1000).default(20),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});
