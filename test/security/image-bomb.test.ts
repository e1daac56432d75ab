/**
 * A decompression bomb to a camera whose frames are rotated: an 844 KB 12000x12000 JPEG
 * decodes to 432 MB. The service, run as an operator runs it (a child process, so its peak
 * memory is its own), refuses it from the header with 413 naming the size,
 * and its peak resident memory (Linux `VmHWM`) hardly moves, three bombs at once included.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { startService, type ServiceProcess } from "../support/service-process";
import { cameraPayload, testJpeg } from "../support/jpeg";

const ADMIN = "bomb-test-admin-key-01";
const PORCH = "PORCH001";
const MB = 1024 * 1024;

/** Peak and current resident memory of a process, in bytes (Linux). */
function memoryOf(pid: number): { peak: number; now: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
  return { peak: kb("VmHWM"), now: kb("VmRSS") };
}

describe("security: a JPEG bomb to a rotated camera", function () {
  this.timeout(120_000);
  let dir: string;
  let svc: ServiceProcess;
  let bomb: Buffer;
  before(async function () {
    if (process.platform !== "linux") this.skip();
    this.timeout(240_000); // the whole service starts, Node-RED with it
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bomb-"));
    const settings = {
      auth: {
        api_keys: [{ key: ADMIN, name: "admin", permissions: ["admin"] }],
        device_keys: [{ key: PORCH, sensor_id: "porch_cam", device_type: "camera_device", permissions: ["device:camera"] }],
      },
      cameras: { porch_cam: { rotate: 90 } },
    };
    fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify(settings));
    // libvips writes it strip by strip: making it costs the test process little.
    bomb = await sharp({ create: { width: 12_000, height: 12_000, channels: 3, background: { r: 90, g: 120, b: 200 } } })
      .jpeg({ quality: 50 })
      .toBuffer();
    svc = await startService({ CAREFLOW_DATA_DIR: dir, CAREFLOW_SETTINGS: path.join(dir, "settings.json"), CAREFLOW_DEMO: "0", DATABASE_URL: "" }, 180_000);
  });
  after(async () => {
    await svc?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const upload = (jpeg: Buffer) =>
    fetch(`${svc.baseUrl}/api/v1/device/camera?api_key=${PORCH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(cameraPayload(jpeg)),
    });

  it("turns an ordinary frame, then refuses three bombs at once with 413 naming the size, its peak memory bounded", async () => {
    assert.ok(bomb.length < 2 * MB, `the bomb is ${bomb.length} bytes`);
    const ok = await upload(await testJpeg(640, 480, 7));
    assert.equal(ok.status, 200, await ok.text());
    const before = memoryOf(svc.child.pid!);
    const answers = await Promise.all([upload(bomb), upload(bomb), upload(bomb)]);
    const after = memoryOf(svc.child.pid!);
    // One decode alone would be 432 MB; three JSON bodies of 1.1 MB and their copies are far less.
    assert.ok(after.peak - before.peak < 150 * MB, `peak memory grew by ${Math.round((after.peak - before.peak) / MB)} MB`);
    for (const res of answers) {
      assert.equal(res.status, 413);
      const body = (await res.json()) as { detail: string };
      assert.match(body.detail, /^data\.image: 12000x12000 is 144000000 pixels, more than/);
    }
  });
});
