/**
 * The keyframe store client on its own, against the fake S3 store and a port nothing listens
 * on: the bytes of a signed GetObject, and a sentence (never a throw) for a store that is not
 * configured, unreachable, too slow or refusing the region.
 */
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { getKeyframe, type KeyframeSettings } from "../../../../../runtime/care/services/perception/keyframe-store.client";
import { startFakeS3, type FakeS3 } from "../../../../fakes/s3-server";

const live = () => new AbortController().signal;

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe("keyframe store client (S3 GetObject, SigV4)", function () {
  this.timeout(10_000);
  let s3: FakeS3;
  const settings = (over: Partial<KeyframeSettings> = {}): KeyframeSettings => ({
    endpoint: s3.url,
    bucket: "frames",
    access_key: "AK",
    secret_key: "SK",
    region: "us-east-1",
    timeout_seconds: 2,
    ...over,
  });
  before(async () => {
    s3 = await startFakeS3({ accessKey: "AK", secretKey: "SK" });
    s3.put("frames", "cam/ä ö+1.jpg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]));
  });
  after(() => s3.close());

  it("answers the object's bytes for a key with spaces, plus signs and non-ASCII letters", async () => {
    const got = await getKeyframe(settings(), "cam/ä ö+1.jpg", live());
    assert.ok(got.ok, got.ok ? "" : got.reason);
    assert.deepEqual([...got.value], [0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    assert.equal(s3.requests.at(-1)?.outcome, "ok");
  });

  it("says why when not configured, unreachable, too slow, or signed for another region", async () => {
    const off = await getKeyframe(settings({ endpoint: null }), "k", live());
    assert.ok(!off.ok && /cts\.keyframes\.endpoint is null/.test(off.reason));

    const down = await getKeyframe(settings({ endpoint: `http://127.0.0.1:${await closedPort()}` }), "k", live());
    assert.ok(!down.ok && /unreachable: ECONNREFUSED/.test(down.reason), down.ok ? "" : down.reason);

    const hang = http.createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(hang.address() as net.AddressInfo).port}`;
      const slow = await getKeyframe(settings({ endpoint: url, timeout_seconds: 0.3 }), "k", live());
      assert.ok(!slow.ok && /did not answer within 0.3 s/.test(slow.reason));
    } finally {
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
    }

    const region = await getKeyframe(settings({ region: "eu-west-1" }), "cam/ä ö+1.jpg", live());
    assert.ok(!region.ok && /HTTP 400: AuthorizationHeaderMalformed/.test(region.reason));
  });

  it("throws the caller's abort instead of answering", async () => {
    const ac = new AbortController();
    ac.abort(new Error("stopping"));
    await assert.rejects(getKeyframe(settings(), "cam/ä ö+1.jpg", ac.signal), /stopping/);
  });
});
