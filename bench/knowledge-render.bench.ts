/**
 * Knowledge: one slot picture (a 4000x3000 JPEG, as a phone takes it) rendered into every
 * surface variant of its layout slot and stored in the media store, as `PUT
 * /info-cards/{id}/slots/{i}` does after the upload is read: `single_hero` (1280x720 WebP for
 * the web app and an 800x320 dithered 1-bit PNG for e-ink) and `side_by_side`. Target: p99 <
 * 150 ms for single_hero. The store plays no part (sharp and the file system only). On a shared
 * machine wall time moves with the other load: the table also gives the CPU time per render and
 * the load average.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { buildSettings } from "../runtime/platform/config/load-settings";
import { systemClock } from "../runtime/platform/core/clock";
import { createLogger } from "../runtime/platform/core/logger";
import type { MediaContext } from "../runtime/household/media/media.service";
import { findLayout } from "../runtime/care/services/knowledge/layouts/layouts";
import { renderSlotVariants } from "../runtime/care/services/knowledge/images/render-variants";
import { nowMs, percentile, report, type BenchRow } from "./support";

const RUNS = 40;
const WARMUP = 3;
const TARGET_MS = 150;

async function photo(): Promise<Buffer> {
  // A smooth gradient with noise on top: JPEG work like a real photo, not a flat fill.
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let i = 0; i < raw.length; i += 3) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const x = (i / 3) % width;
    const y = Math.floor(i / 3 / width);
    const n = seed % 40;
    raw[i] = Math.min(255, Math.round((255 * x) / width) + n);
    raw[i + 1] = Math.min(255, Math.round((255 * y) / height) + n);
    raw[i + 2] = 120 + (n >> 1);
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-bench-knowledge-"));
  const settings = buildSettings({});
  const ctx = { dataDir, settings, clock: systemClock, log: createLogger("silent") } as unknown as MediaContext;
  const jpeg = await photo();
  const rows: BenchRow[] = [];
  const figures: Record<string, unknown> = { runs: RUNS, input: "4000x3000 JPEG", input_bytes: jpeg.length };
  try {
    for (const layoutId of ["single_hero", "side_by_side"]) {
      const slot = findLayout(settings, layoutId)?.image_slots[0];
      if (!slot) throw new Error(`no layout ${layoutId}`);
      for (let i = 0; i < WARMUP; i++) await renderSlotVariants(ctx, jpeg, slot);
      const times: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const c0 = process.cpuUsage();
        const t0 = nowMs();
        await renderSlotVariants(ctx, jpeg, slot);
        times.push(nowMs() - t0);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
      }
      const p50 = percentile(times, 50);
      const p99 = percentile(times, 99);
      const target = layoutId === "single_hero";
      rows.push({ measure: `${layoutId}: all variants p50`, value: p50, unit: "ms" });
      rows.push({ measure: `${layoutId}: all variants p99`, value: p99, unit: "ms", ...(target ? { target: `< ${TARGET_MS}`, ok: p99 < TARGET_MS } : {}) });
      // CPU time of the process (libvips' threads included): what a render costs whatever else runs.
      rows.push({ measure: `${layoutId}: CPU per render p50`, value: percentile(cpu, 50), unit: "ms" });
      figures[`${layoutId}_cpu_p50_ms`] = Number(percentile(cpu, 50).toFixed(1));
      figures[`${layoutId}_p50_ms`] = Number(p50.toFixed(1));
      figures[`${layoutId}_p99_ms`] = Number(p99.toFixed(1));
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const load = os.loadavg()[0];
  rows.push({ measure: "load average (1 min)", value: load, unit: `${os.cpus().length} cpus` });
  figures.load_avg_1m = Number(load.toFixed(2));
  report("knowledge-render", rows, figures);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
