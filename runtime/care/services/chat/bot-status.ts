/**
 * Whether the family chat's bot token works, for the Household page: the bot's name and
 * username from `getMe`, or why not in words. The call goes through the chat link's client, so
 * its outcome also reaches the parts board's "Chat bot" part (bot-client's `onReachable`), and
 * the part's state is answered beside it.
 */
import type { CareContext } from "../../core/context";
import type { ChatLink } from "./chat.service";

export interface BotStatus {
  /** A token is set (CAREFLOW_CHAT_TOKEN or notifications.chat_app.token). */
  configured: boolean;
  /** getMe answered: the token works. */
  ok: boolean;
  name: string | null;
  username: string | null;
  /** Why not, in words; null when it works. */
  detail: string | null;
  mode: "polling" | "webhook";
  /** The parts board's word on the chat bot (ok, late, silent, down), when it watches it. */
  part_state: string | null;
}

export async function botStatus(ctx: CareContext, chat: ChatLink): Promise<BotStatus> {
  const mode = ctx.settings.notifications.chat_app.mode;
  const client = chat.client;
  const base = { mode, name: null, username: null } as const;
  if (!client)
    return {
      ...base,
      configured: false,
      ok: false,
      detail: "No bot token is set: set CAREFLOW_CHAT_TOKEN (or notifications.chat_app.token) and restart careflow.",
      part_state: null,
    };
  const me = await client.call((api, signal) => api.getMe(signal));
  const part_state = ctx.parts?.list().find((p) => p.id === "chat")?.state ?? null;
  if (!me.ok) return { ...base, configured: true, ok: false, detail: `The bot does not answer: ${me.reason}.`, part_state };
  return { mode, configured: true, ok: true, name: me.value.first_name, username: me.value.username ?? null, detail: null, part_state };
}
