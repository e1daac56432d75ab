/**
 * The media object store's contract (object-store-contract.ts) for the single-box files and
 * the shared PostgreSQL table; the S3 store's is in s3-objects.test.ts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fsObjects } from "../../../../runtime/household/media/fs-objects";
import { pgObjects } from "../../../../runtime/household/media/pg-objects";
import { contract, NAME, T0 } from "./object-store-contract";
import { sharedPg, type SharedPg } from "../../../support/pg-cluster";

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
