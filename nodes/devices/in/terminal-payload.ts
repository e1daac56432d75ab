/**
 * The bedside terminal's input (the spec names the endpoint, not its body; docs/decisions.md):
 * a button press (`button`: single, double or long; single when the body says nothing) or a
 * command (`command`, with optional `args`). `action` asks for an alert action explicitly,
 * overriding what the press would do; `alert_id` names the alert, else the newest open one.
 */
import { z } from "zod";
import { storeId } from "../../_kit/store-id";

export const terminalPayloadSchema = z
  .object({
    event: z.enum(["button", "command"]).optional(),
    button: z.enum(["single", "double", "long"]).optional(),
    command: z.string().trim().min(1).max(200).optional(),
    args: z.array(z.string().max(200)).max(20).optional(),
    action: z.enum(["dismiss", "assist", "none"]).optional(),
    alert_id: storeId().optional(),
  })
  .strict();

export type TerminalPayload = z.output<typeof terminalPayloadSchema>;
