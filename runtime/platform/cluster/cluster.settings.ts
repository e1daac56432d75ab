/** The `cluster` settings section: several instances on one PostgreSQL (docs/cluster.md). */
import { z } from "zod";

// Several instances on one PostgreSQL (docs/cluster.md): the singular timed work (cron,
// midnight reports, retention, the chat poller, the hub connection) runs where its lease
// is held. Off: one instance holds every lease, with no database traffic for them.
export const clusterSettings = z
  .object({
    enabled: z.boolean().default(false),
    // The broker the instances share events and deploy notices through (docs/cluster.md); the leases live in PostgreSQL.
    nats_url: z.string().default("nats://127.0.0.1:4222"),
    // Unique per running instance; null: the host name and the process id.
    instance_id: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,100}$/, "letters, digits, '_', '.', ':' or '-' (at most 100)")
      .nullable()
      .default(null),
    // A lease not renewed for this long passes to another instance; renewed every third of it.
    lease_seconds: z.number().min(1).max(300).default(3),
  })
  .strict()
  .prefault({});
