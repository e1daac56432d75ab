/**
 * The chat bot's part (issue 44 §1) is fed by each Bot API call: a refused token (401) or a
 * service that does not answer make it unreachable; a refusal about the request ("chat not
 * found") does not, the bot is there.
 */
import assert from "node:assert/strict";
import { BotClient } from "../../../../../runtime/care/services/chat/bot-client";
import { startFakeChat, type FakeChat } from "../../../../fakes/chat-server";

describe("the chat bot's reachability", () => {
  let chat: FakeChat;
  const seen: Array<[boolean, string | undefined]> = [];
  const client = (token: string, apiBaseUrl = chat.url) =>
    new BotClient({ token, apiBaseUrl, maxRetryAfterSeconds: 0, timeoutSeconds: 2, onReachable: (up, reason) => seen.push([up, reason]) });

  before(async () => {
    chat = await startFakeChat({ token: "123:good", chats: [{ id: 1, type: "private", first_name: "Anna" }] });
  });
  after(() => chat?.close());
  beforeEach(() => (seen.length = 0));

  it("a sent message: reachable", async () => {
    assert.ok((await client("123:good").call((api) => api.sendMessage(1, "hello"))).ok);
    assert.deepEqual(seen, [[true, undefined]]);
  });

  it("a chat not found: still reachable", async () => {
    assert.equal((await client("123:good").call((api) => api.sendMessage(999, "hello"))).ok, false);
    assert.equal(seen[0][0], true);
  });

  it("a revoked token (401): unreachable, saying why", async () => {
    assert.equal((await client("123:revoked").call((api) => api.getMe())).ok, false);
    assert.equal(seen[0][0], false);
    assert.match(seen[0][1] ?? "", /Unauthorized|401/);
  });

  it("a service that does not answer: unreachable", async () => {
    await chat.stop();
    try {
      assert.equal((await client("123:good").call((api) => api.getMe())).ok, false);
      assert.equal(seen[0][0], false);
    } finally {
      await chat.restart();
    }
  });
});
