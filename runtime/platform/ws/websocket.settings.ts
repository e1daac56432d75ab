/** The `websocket` settings section: the limits on `/ws` and `/ws/pipeline` connections. */
import { z } from "zod";

// WebSocket connections (`/ws` and `/ws/pipeline`): a newcomer over a limit is refused,
// nobody already connected is closed.
export const websocketSettings = z
  .object({
    max_connections: z.number().int().positive().default(200),
    max_connections_per_key: z.number().int().positive().default(10),
    max_pipeline_connections: z.number().int().positive().default(50),
    // `/ws` clients are pinged this often (real seconds); one that answered nothing since the
    // last ping is cut off, so a tablet gone from the Wi-Fi stops counting as a screen.
    ping_seconds: z.number().positive().max(3600).default(30),
  })
  .strict()
  .prefault({});
