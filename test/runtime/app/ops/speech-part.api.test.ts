/**
 * The speech service as a part (issue 44 §1), with a fake TTS service and a ManualClock: no part
 * before careflow first speaks through it (`tts.url` has a default); then what the last request
 * said (a failed one down at once, with the reason) and, with no request for 5 minutes, its
 * `/health` checked at most once per 5 minutes.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS, type PartView } from "../../../../runtime/platform/health/parts-board";
import { synthesize } from "../../../../runtime/household/speech/tts-client";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const MINUTE = 60_000;

/** `/health` and an MP3 body for every speech request; counts both. */
async function fakeTts(port = 0): Promise<{ url: string; port: number; health: number; speeches: number; close(): Promise<void> }> {
  const counts = { health: 0, speeches: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.method === "GET" && req.url === "/health") {
        counts.health++;
        res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
        return;
      }
      counts.speeches++;
      res.writeHead(200, { "content-type": "audio/mpeg" }).end("ID3-fake");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    get health() {
      return counts.health;
    },
    get speeches() {
      return counts.speeches;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe("the speech service as a part", function () {
  this.timeout(30000);
  let tts: Awaited<ReturnType<typeof fakeTts>>;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));

  const part = async (): Promise<PartView | undefined> => {
    const res = await t.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.parts.find((p) => p.kind === "tts");
  };
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
      clock.advance(SAMPLE_EVERY_MS);
      await t.app.ctx.parts?.sampled();
    }
  };
  const speak = () => synthesize(t.app.ctx, { text: "hello" }, new AbortController().signal);

  before(async () => {
    tts = await fakeTts();
    t = await startTestApp({ clock, settings: { tts: { url: tts.url } } });
  });
  after(async () => {
    await t?.close();
    await tts?.close();
  });

  it("is no part before careflow first speaks; ok once it answered", async () => {
    await pass(10 * MINUTE);
    assert.equal(await part(), undefined);
    assert.equal(tts.health, 0, "not checked before it is used");
    assert.equal((await speak()).ok, true);
    const p = await part();
    assert.equal(p?.state, "ok");
    assert.equal(p?.name, `Speech service (127.0.0.1:${tts.port})`);
  });

  it("a request that fails marks it down at once with the reason; checks bring it back, at most once per 5 minutes", async () => {
    const port = tts.port;
    await tts.close();
    assert.equal((await speak()).ok, false);
    let p = await part();
    assert.equal(p?.state, "down");
    // The first request may go out on the kept-alive connection the service closed as it stopped.
    assert.match(p?.detail ?? "", /connection refused|connection was closed/);
    assert.equal((await speak()).ok, false);
    p = await part();
    assert.match(p?.detail ?? "", /connection refused/);

    tts = await fakeTts(port);
    await pass(30 * MINUTE);
    assert.equal((await part())?.state, "ok");
    assert.ok(tts.health >= 6 && tts.health <= 7, `checks in 30 minutes: ${tts.health}`);
  });
});
