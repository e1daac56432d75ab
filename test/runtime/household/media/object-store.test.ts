/**
 * The media object store's contract, the same for the single-box files and the shared
 * PostgreSQL table: put once per name (a second put only marks it written), get, stat, list by
 * folder, and a delete that spares an object put after the given instant (a put racing a sweep).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fsObjects } from "../../../../runtime/household/media/fs-objects";
import { pgObjects } from "../../../../runtime/household/media/pg-objects";
import type { MediaObjectStore } from "../../../../runtime/household/media/object-store";
import { sharedPg, type SharedPg } from "../../../support/pg-cluster";

const T0 = Date.parse("2026-11-27T08:00:00Z");
const NAME = `media/ab/cd/${"ab".repeat(32)}.jpg`;

function contract(open: (ctx: Mocha.Context) => Promise<MediaObjectStore>): void {
  let store: MediaObjectStore;
  before(async function () {
    store = await open(this);
  });

  it("puts, gets and stats an object by name; an absent name is null", async () => {
    await store.put(NAME, Buffer.from("frame"), T0);
    assert.deepEqual(await store.get(NAME), Buffer.from("frame"));
    assert.deepEqual(await store.stat(NAME), { name: NAME, size: 5, modified_ms: T0 });
    assert.equal(await store.get("media/ab/cd/missing.jpg"), null);
    assert.equal(await store.stat("media/ab/cd/missing.jpg"), null);
  });

  it("lists a folder, the objects of its subfolders included, and no other", async () => {
    await store.put("media/speech/one.mp3", Buffer.from("clip"), T0);
    await store.put("eink/images/one.png", Buffer.from("png"), T0);
    assert.deepEqual((await store.list("media/")).map((o) => o.name).sort(), [NAME, "media/speech/one.mp3"]);
    assert.deepEqual(
      (await store.list("media/speech")).map((o) => o.name),
      ["media/speech/one.mp3"],
    );
    assert.deepEqual(await store.list("nothing/"), []);
  });

  it("marks an object put again as written then, and a delete spares one put after its instant", async () => {
    await store.put(NAME, Buffer.from("frame"), T0 + 120_000);
    assert.equal((await store.stat(NAME))?.modified_ms, T0 + 120_000);
    assert.equal(await store.delete(NAME, T0 + 60_000), false);
    assert.deepEqual(await store.get(NAME), Buffer.from("frame"));
    assert.equal(await store.delete(NAME, T0 + 120_000), true);
    assert.equal(await store.get(NAME), null);
    assert.equal(await store.delete("eink/images/one.png"), true);
    assert.equal(await store.stat("eink/images/one.png"), null);
  });
}

describe("media object store: files in the data dir", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-objects-"));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  contract(async () => fsObjects(dir));

  it("keeps each object at its name under the data dir, and removes emptied shard folders", async () => {
    const store = fsObjects(dir);
    await store.put(NAME, Buffer.from("frame"), T0);
    assert.equal(fs.readFileSync(path.join(dir, "media", "ab", "cd", path.basename(NAME)), "utf8"), "frame");
    await store.delete(NAME);
    assert.equal(fs.existsSync(path.join(dir, "media", "ab")), false);
    assert.equal(fs.existsSync(path.join(dir, "media", "speech")), true);
    await assert.rejects(store.get("../outside.jpg"), /not a media object name/);
    fs.writeFileSync(path.join(dir, "media", "speech", "a note by hand.txt"), "x");
    assert.deepEqual(
      (await store.list("media/")).map((o) => o.name),
      ["media/speech/one.mp3"],
    );
  });
});

describe("media object store: the shared PostgreSQL table", () => {
  let pg: SharedPg;
  after(async () => pg?.drop());
  contract(async (ctx) => {
    pg = await sharedPg(ctx);
    return pgObjects((await pg.open()).db);
  });
});
