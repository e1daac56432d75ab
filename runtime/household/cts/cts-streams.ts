/**
 * The six continuous-tracking streams: subject (as the tracking service publishes it), the
 * JetStream stream that holds it, and careflow's durable consumer on it. `cts.stream_prefix`
 * prefixes all of them, so two careflows (or two test runs) on one broker never share.
 */

export const STREAM_KEYS = ["tracking.events", "tracking.revisions", "tracking.signals", "scene.samples", "tracking.presence", "tracking.dwell"] as const;
export type StreamKey = (typeof STREAM_KEYS)[number];

export interface StreamNames {
  key: StreamKey;
  /** `tracking.events`, or `{prefix}.tracking.events`. */
  subject: string;
  /** JetStream names allow no dots: `tracking_events`, `{prefix}_tracking_events`. */
  stream: string;
  durable: string;
}

export function streamNames(prefix: string, key: StreamKey): StreamNames {
  const subject = prefix ? `${prefix}.${key}` : key;
  const stream = subject.replace(/\./g, "_");
  return { key, subject, stream, durable: `careflow_${stream}` };
}

export const allStreamNames = (prefix: string): StreamNames[] => STREAM_KEYS.map((k) => streamNames(prefix, k));

/** With several instances, the lease of the one that consumes the streams (docs/cluster.md). */
export const CTS_LEASE = "cts";
