/**
 * At most a few Chromium test files at once on the machine. CI runs the SQLite and PostgreSQL
 * passes side by side with two mocha workers each; four editor sessions at once (each an app,
 * Node-RED and a browser) on two cores left each a quarter of the machine, and waits sized for a
 * busy box still ran out. A browser file takes one of `CAREFLOW_BROWSER_SLOTS` (default 2) slots,
 * shared by every mocha process through files in the temporary directory, before its own hooks
 * run, and gives it back after them; its timing starts once it holds one. A slot whose holder
 * died (a killed worker) is taken over.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type Mocha from "mocha";

const SLOT_DIR = path.join(os.tmpdir(), "careflow-browser-slots");
const POLL_MS = 250;

const slotCount = (): number => Math.max(1, Number(process.env.CAREFLOW_BROWSER_SLOTS) || 2);

const isBrowserFile = (file: string | undefined): boolean => !!file && /[\\/]test[\\/]browser[\\/]/.test(file);

const fileOf = (suite: Mocha.Suite | undefined): string | undefined => suite?.file ?? suite?.suites.find((s) => s.file)?.file;

/** Is the process alive (a marker's holder that died is ignored or taken over)? */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

const holderOf = (slot: string): number => Number(fs.readFileSync(slot, "utf8")) || 0;

/**
 * Takes a free slot of `count` in `dir` for `pid`, or one whose holder is gone; the slot's file,
 * or undefined when all are held.
 */
export function tryTakeSlot(dir: string, count: number, pid = process.pid): string | undefined {
  fs.mkdirSync(dir, { recursive: true });
  const mine = path.join(dir, `claim-${pid}`);
  fs.writeFileSync(mine, String(pid));
  try {
    for (let i = 0; i < count; i++) {
      const slot = path.join(dir, `slot-${i}`);
      try {
        fs.linkSync(mine, slot); // atomic: fails when the slot is held
        return slot;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      let holder: number;
      try {
        holder = holderOf(slot);
      } catch {
        continue; // given back meanwhile: the next poll tries it
      }
      if (holder && !alive(holder)) {
        fs.copyFileSync(mine, `${mine}.takeover`);
        fs.renameSync(`${mine}.takeover`, slot);
        if (holderOf(slot) === pid) return slot;
      }
    }
    return undefined;
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

/** Gives `slot` back if `pid` still holds it. */
export function giveBackSlot(slot: string, pid = process.pid): void {
  try {
    if (holderOf(slot) === pid) fs.rmSync(slot, { force: true });
  } catch {
    // already gone
  }
}

let held: string | undefined;

function giveBack(): void {
  if (held) giveBackSlot(held);
  held = undefined;
}

process.once("exit", giveBack);

export const browserSlotHooks: Mocha.RootHookObject = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    if (!isBrowserFile(fileOf(this.test?.parent))) return;
    this.timeout(0); // the wait is for the others' files to end, however long they take
    while (!(held = tryTakeSlot(SLOT_DIR, slotCount()))) await sleep(POLL_MS);
  },
  afterAll(): void {
    giveBack();
  },
};
