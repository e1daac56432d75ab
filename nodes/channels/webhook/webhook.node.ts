import { z } from "zod";
import { defineChannel } from "../../_kit/define";

export const spec = defineChannel({
  type: "webhook",
  displayName: "Webhook",
  description: "POSTs the notification as JSON to a URL (opt-in).",
  version: 1,
  config: z
    .object({
      url: z.string().url().optional().describe("Overrides notifications.webhook.url"),
      timeout_seconds: z.number().positive().max(120).default(10).describe("Request timeout"),
      headers: z.record(z.string(), z.string()).default({}).describe("Extra headers, e.g. Authorization: Bearer <token>"),
    })
    .strict(),
  stepOptions: ["webhook_url"],
  configFrom: (options, notifications) => ({
    url: options.webhook_url ?? notifications.webhook.url ?? undefined,
    timeout_seconds: notifications.webhook.timeout_seconds,
    headers: notifications.webhook.headers,
  }),
  palette: { color: "#F3B567", icon: "white-globe.svg" },
});
