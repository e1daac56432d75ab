/**
 * The media object store's contract, the same for every store (the single-box files, the
 * shared PostgreSQL table, an S3-compatible store): put once per name (a second put only marks
 * it written), get, stat, list by folder, and a delete that spares an object put after the
 * given instant (a put racing a sweep).
 */
import assert from "node:assert/strict";
import type { MediaObjectStore } from "../../../../runtime/household/media/object-store";

export const T0 = Date.parse("2026-11-27T08:00:00Z");
export const NAME = `media/ab/cd/${"ab".repeat(32)}.jpg`;

export function contract(open: (ctx: Mocha.Context) => Promise<MediaObjectStore>): void {
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
