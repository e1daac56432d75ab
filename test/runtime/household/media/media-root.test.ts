/**
 * Which folder of a data dir is a store's (media-root.ts), decided case by case. A wrong answer
 * is data loss: a store that takes another's folder for its own sweeps that household's frames.
 * Each store here is a SQLite file, either the data dir's own `careflow.db` or one elsewhere.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openStore, type Store } from "../../../../runtime/platform/db/store";
import { MARKER, mediaRoot, STORES_DIR } from "../../../../runtime/household/media/media-root";
import { insertMediaRow } from "../../../../runtime/household/media/media.store";

const OBJECT = `${"ab".repeat(32)}.jpg`;
const OBJECT_PATH = `media/ab/ab/${OBJECT}`;

describe("media root: which folder of a data dir is this store's", function () {
  this.timeout(30_000);
  let dataDir: string;
  let elsewhere: string;
  const opened: Store[] = [];
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-root-"));
    elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-root-other-"));
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    for (const dir of [dataDir, elsewhere]) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The data dir's own SQLite store, or (`name`) one kept outside it. */
  async function store(name?: string): Promise<Store> {
    const s = await openStore(name ? `sqlite:${path.join(elsewhere, `${name}.db`)}` : undefined, dataDir);
    opened.push(s);
    return s;
  }
  const marker = () => JSON.parse(fs.readFileSync(path.join(dataDir, "media", MARKER), "utf8")) as { store_id: string; foreign_up_to_ms: number };
  function leaveObject(mtimeMs: number): void {
    const file = path.join(dataDir, OBJECT_PATH);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "frame");
    fs.utimesSync(file, mtimeMs / 1000, mtimeMs / 1000);
  }

  it("claims an empty data dir: its own layout, its marker, nothing there that is another's", async () => {
    const s = await store("first");
    const root = await mediaRoot(s.db, dataDir);
    assert.equal(root.dir, dataDir);
    assert.equal(root.guest_of, null);
    assert.equal(root.foreign_up_to_ms, 0);
    assert.deepEqual(marker(), { store_id: root.store_id, foreign_up_to_ms: 0 });
  });

  it("keeps to its own folder when the marker names another store, and says whose the data dir is", async () => {
    const owner = await mediaRoot((await store()).db, dataDir);
    const visitor = await mediaRoot((await store("visitor")).db, dataDir);
    assert.equal(visitor.dir, path.join(dataDir, STORES_DIR, visitor.store_id));
    assert.equal(visitor.guest_of, owner.store_id);
    assert.ok(fs.statSync(visitor.dir).isDirectory(), "its folder is made");
    assert.notEqual(visitor.store_id, owner.store_id);
  });

  it("a store once a guest stays in its folder even after the marker is gone", async () => {
    const first = await mediaRoot((await store("visitor")).db, dataDir);
    assert.equal(first.dir, dataDir, "first, the empty data dir was its to claim");
    const own = path.join(dataDir, STORES_DIR, first.store_id);
    fs.rmSync(path.join(dataDir, "media", MARKER));
    fs.mkdirSync(own, { recursive: true });
    const again = await mediaRoot((await store("visitor")).db, dataDir);
    assert.equal(again.dir, own);
    assert.equal(again.guest_of, null, "no marker: no owner to name");
    assert.equal(fs.existsSync(path.join(dataDir, "media", MARKER)), false, "and it claims nothing");
  });

  it("does not claim a data dir from before the marker whose frames nothing of it names", async () => {
    leaveObject(Date.parse("2026-11-01T00:00:00Z"));
    const root = await mediaRoot((await store("visitor")).db, dataDir);
    assert.equal(root.dir, path.join(dataDir, STORES_DIR, root.store_id));
    assert.equal(fs.existsSync(path.join(dataDir, "media", MARKER)), false);
  });

  it("claims such a data dir when a frame row of it names one of the files, counting the files there as not its own", async () => {
    const put = Date.parse("2026-11-01T00:00:00Z");
    leaveObject(put);
    const s = await store("household");
    await insertMediaRow(s.db, {
      sensor_id: "cam",
      room_name: null,
      path: OBJECT_PATH,
      captured_at: "2026-11-01T00:00:00.000Z",
      object_name: OBJECT,
      content_type: "image/jpeg",
      byte_size: 5,
      labels: [],
      boxes: [],
    });
    const root = await mediaRoot(s.db, dataDir);
    assert.equal(root.dir, dataDir);
    assert.equal(root.foreign_up_to_ms, put, "what was there when it claimed the folder is deleted only when its own rows name it");
    assert.deepEqual(marker(), { store_id: root.store_id, foreign_up_to_ms: put });
  });

  it("claims such a data dir when it is the data dir's own SQLite file", async () => {
    leaveObject(Date.parse("2026-11-02T00:00:00Z"));
    const root = await mediaRoot((await store()).db, dataDir);
    assert.equal(root.dir, dataDir);
    assert.equal(root.foreign_up_to_ms, Date.parse("2026-11-02T00:00:00Z"));
  });

  it("two stores starting at once on one empty data dir: one owner, one guest", async () => {
    const [a, b] = await Promise.all([store("a"), store("b")]);
    const roots = await Promise.all([mediaRoot(a.db, dataDir), mediaRoot(b.db, dataDir)]);
    const owners = roots.filter((r) => r.dir === dataDir);
    assert.equal(owners.length, 1);
    const guest = roots.find((r) => r.dir !== dataDir)!;
    assert.equal(guest.guest_of, owners[0].store_id);
    assert.equal(marker().store_id, owners[0].store_id);
  });

  it("answers the same folder for the same store and data dir, and the owner finds its marker again", async () => {
    const s = await store();
    const first = await mediaRoot(s.db, dataDir);
    assert.equal(await mediaRoot(s.db, dataDir), first);
    await s.close();
    opened.splice(opened.indexOf(s), 1);
    const reopened = await mediaRoot((await store()).db, dataDir);
    assert.deepEqual(reopened, first);
  });

  it("refuses a marker that names no store, saying what to do; one that names a store makes the others its guests", async () => {
    fs.mkdirSync(path.join(dataDir, "media"), { recursive: true });
    fs.writeFileSync(path.join(dataDir, "media", MARKER), "{not json");
    await assert.rejects(mediaRoot((await store("x")).db, dataDir), /names no store; remove it only if one store ever used this data dir/);
    fs.writeFileSync(path.join(dataDir, "media", MARKER), JSON.stringify({ store_id: "someone" }));
    const guest = await mediaRoot((await store("y")).db, dataDir);
    assert.equal(guest.guest_of, "someone");
  });
});
