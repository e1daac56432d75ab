/**
 * A household backed up while its service runs and restored into an empty store (issue 46 §2),
 * on whichever store the run uses (SQLite, or PostgreSQL with CAREFLOW_TEST_DATABASE_URL): the
 * same rules and people, the enrolled face still identified, the documents still answering (with
 * their picture and the question asked before), and the run parked in a wait resumes on the
 * restored store and finishes once. The backup holds no secret, and a restore is refused while a
 * service uses the store and into one that holds a household unless forced.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { kvGet } from "../../../../runtime/platform/db/kv";
import { storeFrame } from "../../../../runtime/household/media/media.service";
import { WorkerFaceEngine } from "../../../../runtime/household/identity/builtin-engine";
import type { ImageFaces } from "../../../../runtime/household/identity/engine";
import { restoreBackup, RestoreError } from "../../../../runtime/app/backup/restore";
import { ENROLL_AUGMENTS, faceCrop, sampleFrame } from "../../../support/face-photos";
import { eventually, importRule } from "../../../support/eventually";
import { freshDatabase, migratedDatabase, testDialect, type TestDatabase } from "../../../support/test-db";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";
import { png, sendForm } from "../../care/services/knowledge/knowledge-support";

const HUB_TOKEN = "hub-token-that-must-not-leak-0001";
const NOTES = [
  "The new heater is in the living room, under the window.",
  "To switch the heater off, hold the red button for three seconds until the light goes out.",
].join("\n\n");

describe(`backup and restore: a whole household round trip (${testDialect()})`, function () {
  this.timeout(240_000);
  const clock = new ManualClock(Date.parse("2026-01-05T09:00:00Z"));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-backup-test-"));
  const settingsFile = path.join(work, "settings.json");
  fs.writeFileSync(settingsFile, JSON.stringify({ app: { name: "Rose's home" }, hub: { token: HUB_TOKEN } }));
  let source: TestDatabase;
  let target: TestDatabase;
  let a: TestApp;
  let b: TestApp | undefined;
  let frame: Buffer;
  let execution: number;
  let backupFile: string;
  let urlSecret: string;

  before(async () => {
    source = await migratedDatabase();
    target = await freshDatabase();
    a = await startTestApp({ database: source, nodeRed: true, clock, settingsFile });
    // People and a face.
    assert.equal((await a.post("/api/v1/rooms", { name: "kitchen" })).status, 201);
    assert.equal((await a.post("/api/v1/persons", { person_id: "rose", display_name: "Grandma Rose" })).status, 201);
    frame = await sampleFrame(1);
    const probe = new WorkerFaceEngine();
    const faces = ((await probe.detect([frame]))[0] as ImageFaces).faces;
    await probe.close();
    const form = new FormData();
    for (const [i, aug] of ENROLL_AUGMENTS.entries())
      form.append("photos", new Blob([await faceCrop(frame, faces[0].bbox, aug)], { type: "image/jpeg" }), `rose-${i}.jpg`);
    const enrolled = await fetch(`${a.baseUrl}/api/v1/persons/rose/enroll`, { method: "POST", headers: { "X-API-Key": KEYS.admin }, body: form });
    assert.equal(enrolled.status, 201, await enrolled.text());
    // Knowledge with a picture, approved, and a question already asked.
    const doc = await sendForm(a, "POST", "/api/v1/knowledge/documents", { title: "The heater", source_text: NOTES }, [
      { field: "images", bytes: await png() },
    ]);
    assert.equal(doc.status, 201, doc.text);
    assert.equal((await a.post(`/api/v1/knowledge/documents/${doc.body.id}/approve`)).status, 200);
    assert.equal((await a.post("/api/v1/knowledge/query", { query: "How do I switch the heater off?" })).body.found, true);
    // A rule whose run is parked in a 30-minute wait.
    const ruleId = await importRule(a, {
      rule: { name: "Evening check", trigger_type: "manual" },
      steps: [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 30 } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "wait_started != null", trigger_cooloff: true } },
      ],
      edges: [{ source_label: "pause", source_port: "main", target_label: "after" }],
    });
    execution = (await a.post(`/api/v1/rules/${ruleId}/execute`)).body.execution_id;
    await eventually("the run to park", async () => (await a.get(`/api/v1/workflows/${execution}`)).body.status === "waiting");
    urlSecret = (await kvGet(a.app.ctx.db, "media:url-secret")) as string;
    assert.ok(urlSecret, "the media links' key exists before the backup");
  });
  after(async () => {
    await b?.close();
    await a?.close().catch(() => undefined);
    await source?.drop();
    await target?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it("backs up while the service runs, lists the file and serves it to an admin only", async () => {
    const made = await a.post("/api/v1/admin/backups");
    assert.equal(made.status, 201, made.text);
    assert.match(made.body.name, /^careflow-20260105-090000Z\.cfbackup$/);
    assert.equal(made.body.made_by, "manual");
    assert.equal(made.body.dialect, testDialect());
    assert.deepEqual([made.body.counts.persons, made.body.counts.rules, made.body.counts.knowledge_documents], [1, 1, 1]);
    assert.ok(made.body.media_objects >= 1, "the document's picture came along");
    const list = await a.get("/api/v1/admin/backups");
    assert.deepEqual(
      list.body.backups.map((x: { name: string }) => x.name),
      [made.body.name],
    );
    assert.equal(list.body.last_ok.name, made.body.name);
    assert.equal(list.body.last_failure, null);
    assert.equal((await a.get(`/api/v1/admin/backups/${made.body.name}`, KEYS.caregiver)).status, 403);
    const res = await fetch(`${a.baseUrl}/api/v1/admin/backups/${made.body.name}`, { headers: { "X-API-Key": KEYS.admin } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-disposition") ?? "", /attachment; filename="careflow-/);
    backupFile = path.join(work, made.body.name);
    fs.writeFileSync(backupFile, Buffer.from(await res.arrayBuffer()));
    assert.equal(fs.statSync(backupFile).size, made.body.size_bytes);
    // No secret inside: not the settings file's hub token, not the media links' key.
    const content = zlib.gunzipSync(fs.readFileSync(backupFile));
    assert.equal(content.indexOf(HUB_TOKEN), -1, "the settings' hub token is left out");
    assert.equal(content.indexOf(urlSecret), -1, "the media links' key is left out");
    assert.ok(content.indexOf("Rose's home") > 0, "the settings came along");
  });

  it("refuses to restore into a store a service is using", async () => {
    await assert.rejects(
      restoreBackup(backupFile, { dataDir: source.dataDir, databaseUrl: source.databaseUrl, settings: a.app.ctx.settings }, { clock, force: true }),
      (err: unknown) => err instanceof RestoreError && /in use/.test(err.message),
    );
  });

  it("restores into an empty store: the same rules and people, faces identify, documents answer, the wait resumes once", async () => {
    await a.close();
    const report = await restoreBackup(backupFile, { dataDir: target.dataDir, databaseUrl: target.databaseUrl, settings: a.app.ctx.settings }, { clock });
    assert.ok(report.media_objects >= 1);
    assert.ok(report.settings_file && fs.readFileSync(report.settings_file, "utf8").includes('"token": "***"'));
    b = await startTestApp({ database: target, nodeRed: true, clock });
    const rules = await b.get("/api/v1/rules");
    assert.deepEqual(
      rules.body.map((r: { name: string }) => r.name),
      ["Evening check"],
    );
    const persons = await b.get("/api/v1/persons");
    assert.deepEqual(
      persons.body.map((p: { person_id: string; enrollment_status: string }) => [p.person_id, p.enrollment_status]),
      [["rose", "enrolled"]],
    );
    // The face.
    const stored = await storeFrame(b.app.ctx, { sensor_id: "kitchen_cam", room_name: "kitchen", bytes: frame });
    const seen = await b.app.services.identity.identify(
      { media_paths: [stored.path], sensor_id: "kitchen_cam", room_name: "kitchen", include_annotated_image: false, include_motion: false },
      new AbortController().signal,
    );
    assert.ok(seen.ok);
    assert.deepEqual(
      seen.value.person_detections.filter((d) => d.person_id === "rose").map((d) => d.identity),
      ["Grandma Rose"],
    );
    // The documents, their picture and their history.
    const answer = await b.post("/api/v1/knowledge/query", { query: "How do I switch the heater off?" });
    assert.equal(answer.body.found, true);
    assert.match(answer.body.answer, /To switch the heater off, hold the red button for three seconds/);
    const doc = (await b.get("/api/v1/knowledge/documents")).body.items[0];
    const detail = await b.get(`/api/v1/knowledge/documents/${doc.id}`);
    const picture = await fetch(b.baseUrl + detail.body.images[0].url);
    assert.equal(picture.status, 200);
    assert.deepEqual(Buffer.from(await picture.arrayBuffer()), await png());
    const asked = await b.get("/api/v1/knowledge-interactions/queries");
    assert.equal(asked.body.items.length, 2, "the question asked before the backup, and the one just now");
    // The parked wait.
    assert.equal((await b.get(`/api/v1/workflows/${execution}`)).body.status, "waiting");
    clock.advance(31 * 60_000);
    const run = await eventually("the restored run to end", async () => {
      const r = (await b!.get(`/api/v1/workflows/${execution}`)).body;
      return ["completed", "failed", "cancelled"].includes(r.status) ? r : undefined;
    });
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.deepEqual(
      run.step_timings.map((s: { label: string }) => s.label),
      ["pause", "after"],
      "the step after the wait ran once",
    );
    assert.equal((await b.get("/api/v1/workflows")).body.length, 1, "no second run");
  });

  it("refuses to restore over a household unless forced", async () => {
    await b!.close();
    b = undefined;
    await assert.rejects(
      restoreBackup(backupFile, { dataDir: target.dataDir, databaseUrl: target.databaseUrl, settings: a.app.ctx.settings }, { clock }),
      (err: unknown) => err instanceof RestoreError && /already holds a household \(persons 1, rooms 1, rules 1/.test(err.message),
    );
    const forced = await restoreBackup(
      backupFile,
      { dataDir: target.dataDir, databaseUrl: target.databaseUrl, settings: a.app.ctx.settings },
      { clock, force: true },
    );
    assert.equal(forced.manifest.counts.persons, 1);
  });
});
