/** The `mcp` settings section: the tools agents and the voice companion see, and who may call /mcp (docs/mcp.md). */
import { z } from "zod";

export const mcpSettings = z
  .object({
    tools: z.array(z.string()).nullable().default(null),
    voice_tools: z
      .array(z.string())
      .default([
        "get_rooms",
        "get_room_occupancy",
        "get_person_locations",
        "get_alerts",
        "get_weather",
        "get_local_datetime",
        "get_person_activities",
        "get_enrolled_persons",
        "query_knowledge_base",
      ]),
    // Browser origins allowed to call /mcp (`http://host:port`); a request without an Origin
    // header (an agent, the SDK in Node) is not a browser and passes. The service's own origin
    // (`app.public_url`) is always allowed. See docs/mcp.md (DNS rebinding).
    allowed_origins: z.array(z.string().url()).default([]),
    // Host names /mcp answers to besides IP addresses, `localhost` and `app.public_url`'s host
    // (a name like `careflow.local` the household uses). Anything else is refused with 403.
    allowed_hosts: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .prefault({});
