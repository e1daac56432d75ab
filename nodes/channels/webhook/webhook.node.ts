import { z } from "zod";
import { defineChannel } from "../../_kit/define";
import { template } from "../../_kit/fields";

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
  step: {
    order: 6,
    words: template("Webhook body; JSON when it parses as JSON", { title: "Webhook body" }).optional(),
    options: { webhook_url: z.string().url().optional().describe("Overrides the global webhook URL") },
  },
  configFrom: (options, notifications) => ({
    url: options.webhook_url ?? notifications.webhook.url ?? undefined,
    timeout_seconds: notifications.webhook.timeout_seconds,
    headers: notifications.webhook.headers,
  }),
  palette: { color: "#F3B567", icon: "white-globe.svg" },
});
