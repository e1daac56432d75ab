/**
 * `npm run fake-chat`: the fake chat service (chat-server.ts) on a fixed port, to watch alerts
 * arrive and press their buttons by hand. FAKE_CHAT_PORT (default 8081), FAKE_CHAT_TOKEN
 * (default printed) and FAKE_CHAT_IDS (comma-separated chat ids, default 1001,1002) set it up.
 * Point careflow at it with `notifications.chat_app.api_base_url: http://127.0.0.1:8081`,
 * targets with those chat ids, and CAREFLOW_CHAT_TOKEN set to the token. Lines on stdin act
 * as the family (`help` lists them), e.g. `press 1001 3 ack` or `say 1002 /status`.
 */
import { runConsole } from "./console-commands";
import { buttonsText, startFakeChat, type ChatUser, type FakeChat } from "./chat-server";

const DEFAULT_TOKEN = "123456:careflow-fake-chat-token";

const HELP = `commands:
  messages                         list the messages the bot sent (newest last)
  press <chat> <message> ack|res   press "I'm on it" (ack) or "Resolved" (res) on a message
  reply <chat> <message> <text>    reply to a message (acknowledges its alert)
  say <chat> <text>                send a message, e.g. /status
  fail <method> <code> [retry]     answer the next call of a method with an error (429 with retry_after)
  down | up                        stop answering (a chat outage) | answer again
  help | quit`;

const person = (chatId: number): ChatUser => ({ id: chatId, is_bot: false, first_name: chatId % 2 ? "Anna" : "Ben", username: `user${chatId}` });

function run(chat: FakeChat, line: string): Promise<string | null> | string | null {
  const [cmd, ...a] = line.trim().split(/\s+/);
  switch (cmd) {
    case undefined:
    case "":
      return null;
    case "help":
      return HELP;
    case "messages":
      return (
        chat.messages
          .map(
            (m) =>
              `${m.chat_id} #${m.message_id}${m.photo ? ` [photo ${m.photo.width}x${m.photo.height}]` : ""} ${m.text ?? ""}${m.reply_markup ? `  [${buttonsText(m.reply_markup)}]` : ""}`,
          )
          .join("\n") || "no messages yet"
      );
    case "press": {
      const m = chat.message(Number(a[0]), Number(a[1]));
      const button = (m?.reply_markup as { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | null)?.inline_keyboard
        ?.flat()
        .find((b) => b.callback_data?.startsWith(`${a[2] ?? "ack"}:`));
      if (!m || !button?.callback_data) return "usage: press <chat> <message> ack|res (a message with that button)";
      chat.pressButton(m.chat_id, m.message_id, button.callback_data, person(m.chat_id));
      return `pressed ${button.callback_data}`;
    }
    case "reply":
      chat.sendText(Number(a[0]), a.slice(2).join(" ") || "on my way", person(Number(a[0])), Number(a[1]));
      return "reply sent";
    case "say":
      chat.sendText(Number(a[0]), a.slice(1).join(" "), person(Number(a[0])));
      return "sent";
    case "fail":
      chat.failNext(a[0] ?? "sendMessage", { error_code: Number(a[1] ?? 429), description: "Scripted failure", retry_after: a[2] ? Number(a[2]) : undefined });
      return `the next ${a[0]} fails`;
    case "down":
      return chat.stop().then(() => "down (`up` to answer again)");
    case "up":
      return chat.restart().then(() => `listening on ${chat.url}`);
    default:
      return `unknown command ${cmd}; ${HELP}`;
  }
}

async function main(): Promise<void> {
  const token = process.env.FAKE_CHAT_TOKEN || DEFAULT_TOKEN;
  const ids = (process.env.FAKE_CHAT_IDS || "1001,1002").split(",").map(Number);
  const chat = await startFakeChat({
    token,
    port: Number(process.env.FAKE_CHAT_PORT ?? 8081),
    chats: ids.map((id) => ({ id, type: "private", first_name: person(id).first_name })),
    log: (line) => console.log(`[chat] ${line}`),
  });
  console.log(`fake chat service (Bot API)
  api_base_url  ${chat.url}
  token         ${token}${process.env.FAKE_CHAT_TOKEN ? "" : "   (set FAKE_CHAT_TOKEN to choose another)"}
  chats         ${ids.join(", ")}
${HELP}`);
  runConsole(
    (line) => run(chat, line),
    () => chat.close(),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
