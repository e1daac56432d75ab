/**
 * The media store in an S3-compatible store (s3-objects.ts) against the fake S3, which checks
 * every signature as S3 does: the store's contract, where the objects are in the bucket (each
 * store in its own folder), listings over several pages, presigned URLs (served, refused once
 * expired on the store's clock or when tampered with), and the failures a caller sees: a
 * store that is down, credentials it refuses, a bucket that is not there.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ServiceUnavailableError } from "../../../../runtime/platform/core/errors";
import { openStore, type Store } from "../../../../runtime/platform/db/store";
import { s3Objects, s3Problem, type S3StoreSettings } from "../../../../runtime/household/media/s3-objects";
import { startFakeS3, type FakeS3 } from "../../../fakes/s3-server";
import { contract, NAME, T0 } from "./object-store-contract";

const ACCESS = "careflow";
const SECRET = "fake+secret/with=signs";
const BUCKET = "careflow-media";

const closedPort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
};

describe("media object store: an S3-compatible store (fake S3 checking signatures)", () => {
  let s3: FakeS3;
  let store: Store;
  let other: Store;
  /** The fake store's clock runs this far ahead of the wall clock. */
  let skewMs = 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-s3-objects-"));
  const settings = (over: Partial<S3StoreSettings> & { secret?: string; url?: string } = {}): S3StoreSettings => ({
    store_url: over.url ?? `http://${ACCESS}:${encodeURIComponent(over.secret ?? SECRET)}@${new URL(s3.url).host}/${BUCKET}/household`,
    store_region: over.store_region ?? "eu-central-1",
    store_timeout_seconds: over.store_timeout_seconds ?? 2,
  });

  before(async () => {
    s3 = await startFakeS3({ accessKey: ACCESS, secretKey: SECRET, region: "eu-central-1", now: () => Date.now() + skewMs, pageSize: 2 });
    s3.createBucket(BUCKET);
    store = await openStore("sqlite::memory:", dir);
    other = await openStore("sqlite::memory:", dir);
  });
  after(async () => {
    await store?.close();
    await other?.close();
    await s3?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  contract(async () => s3Objects(store.db, settings()));

  it("keeps each store's objects in its own folder of the bucket, typed, with the app's time of the put", async () => {
    const mine = s3Objects(store.db, settings());
    const theirs = s3Objects(other.db, settings());
    await mine.put(NAME, Buffer.from("frame"), T0);
    await theirs.put("media/speech/two.mp3", Buffer.from("clip"), T0);
    const keys = s3.keys(BUCKET);
    const root = /^household\/([0-9a-f]{16})\/media\/ab\/cd\//.exec(keys.find((k) => k.endsWith(path.basename(NAME))) ?? "")?.[1];
    assert.ok(root, keys.join(", "));
    const object = s3.object(BUCKET, `household/${root}/${NAME}`);
    assert.equal(object?.contentType, "image/jpeg");
    assert.equal(object?.meta["x-amz-meta-careflow-put-ms"], String(T0));
    assert.equal(
      s3.object(
        BUCKET,
        keys.find((k) => k.endsWith("two.mp3"))!,
      )?.contentType,
      "audio/mpeg",
    );
    // A sweep of either store lists only its own objects.
    assert.ok(!(await mine.list("media/")).some((o) => o.name.endsWith("two.mp3")));
    assert.deepEqual(
      (await theirs.list("media/")).map((o) => o.name),
      ["media/speech/two.mp3"],
    );
    // Every request was signed as S3 wants (a missing object's 404 aside).
    assert.deepEqual([...new Set(s3.requests.map((r) => r.outcome))].sort(), ["NoSuchKey", "ok"]);
  });

  it("lists a folder of more objects than one page holds", async () => {
    const mine = s3Objects(store.db, settings());
    const names = Array.from({ length: 5 }, (_, i) => `media/ef/01/${String(i).repeat(64)}.jpg`);
    for (const n of names) await mine.put(n, Buffer.from(n), T0);
    const listed = (await mine.list("media/ef/")).map((o) => o.name);
    assert.deepEqual(listed, names);
    assert.ok(s3.requests.filter((r) => r.method === "GET" && r.path === `/${BUCKET}`).length >= 3, "the listing took several pages");
  });

  it("presigns a GET that the store serves with the object's type until it expires on the store's clock", async () => {
    const mine = s3Objects(store.db, settings());
    await mine.put(NAME, Buffer.from("frame"), T0);
    const url = await mine.presign(NAME, 60);
    assert.ok(url.startsWith(`${s3.url}/${BUCKET}/household/`), url);
    assert.match(url, /X-Amz-Expires=60&/);
    assert.doesNotMatch(url, new RegExp(encodeURIComponent(SECRET).replace(/[+]/g, "\\+")));
    const ok = await fetch(url);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("content-type"), "image/jpeg");
    assert.equal(Buffer.from(await ok.arrayBuffer()).toString(), "frame");

    const tampered = await fetch(url.replace("X-Amz-Expires=60", "X-Amz-Expires=600"));
    assert.equal(tampered.status, 403);
    assert.match(await tampered.text(), /<Code>SignatureDoesNotMatch<\/Code>/);
    skewMs = 61_000;
    try {
      const expired = await fetch(url);
      assert.equal(expired.status, 403);
      assert.match(await expired.text(), /<Code>AccessDenied<\/Code><Message>Request has expired/);
    } finally {
      skewMs = 0;
    }
  });

  it("throws a 503 naming the store (never its secret) when it is down, refuses the credentials, or has no such bucket", async () => {
    const wrong = s3Objects(store.db, settings({ secret: "not-the-secret" }));
    const refused = await wrong.put(NAME, Buffer.from("frame"), T0).then(
      () => null,
      (err: unknown) => err,
    );
    assert.ok(refused instanceof ServiceUnavailableError, String(refused));
    assert.match(refused.message, /answered PUT media\/ab\/cd\/\S+ with HTTP 403: SignatureDoesNotMatch/);
    assert.doesNotMatch(refused.message, /not-the-secret|careflow:/);

    const port = await closedPort();
    const down = s3Objects(store.db, settings({ url: `http://${ACCESS}:${encodeURIComponent(SECRET)}@127.0.0.1:${port}/${BUCKET}` }));
    await assert.rejects(
      down.get(NAME),
      (err: Error) => err instanceof ServiceUnavailableError && /at http:\/\/127\.0\.0\.1:\d+\/careflow-media is unreachable: ECONNREFUSED/.test(err.message),
    );

    s3.down = true;
    try {
      await assert.rejects(s3Objects(store.db, settings()).stat(NAME), /HTTP 503/);
    } finally {
      s3.down = false;
    }

    assert.equal(await s3Problem(settings()), null);
    assert.match(
      (await s3Problem(settings({ url: `http://${ACCESS}:${encodeURIComponent(SECRET)}@${new URL(s3.url).host}/no-such-bucket` }))) ?? "",
      /HTTP 404: NoSuchBucket/,
    );
    assert.match((await s3Problem(settings({ secret: "wrong" }))) ?? "", /HTTP 403: SignatureDoesNotMatch/);
    assert.match((await s3Problem(settings({ store_region: "us-east-1" }))) ?? "", /HTTP 400: AuthorizationHeaderMalformed/);
  });
});
