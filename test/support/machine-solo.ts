/**
 * A test file that measures real time across processes (the three-instance cluster suite: a
 * lease must move within 5 s of a kill -9) cannot share two cores with three other mocha workers
 * and their browsers: starved of CPU, its instances renew late and its failovers miss by
 * milliseconds. Such a file asks for the machine (`haveTheMachineAlone`) once it knows it will
 * run; every other file of every mocha process on the machine marks itself running at its start
 * and steps back while the machine is wanted, so the file waits for the files under way to end
 * and then runs alone. Coordinated through files in the temporary directory, like the browser
 * slots; a marker whose process died is ignored.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type Mocha from "mocha";
import { alive, giveBackSlot, tryTakeSlot } from "./browser-slots";

const DIR = path.join(os.tmpdir(), "careflow-machine");
const POLL_MS = 100;
const marker = (dir: string, kind: Kind, pid: number) => path.join(dir, `${kind}-${pid}`);
type Kind = "running" | "wanted";

/** The live processes other than `pid` with a marker of `kind` in `dir`. */
function others(dir: string, kind: Kind, pid: number): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(`${kind}-`))
    .map((n) => Number(n.slice(kind.length + 1)))
    .filter((p) => p && p !== pid && alive(p));
}

let lock: string | undefined;

/** Waits until no other file runs on the machine; the others wait to start until `giveTheMachineBack`. */
export async function wantTheMachine(dir = DIR, pid = process.pid): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  while (!(lock = tryTakeSlot(path.join(dir, "solo"), 1, pid))) await sleep(POLL_MS);
  fs.writeFileSync(marker(dir, "wanted", pid), String(pid));
  while (others(dir, "running", pid).length > 0) await sleep(POLL_MS);
}

export function giveTheMachineBack(dir = DIR, pid = process.pid): void {
  fs.rmSync(marker(dir, "wanted", pid), { force: true });
  if (lock) giveBackSlot(lock, pid);
  lock = undefined;
}

/** Marks this file running, once no other wants the machine alone (marked first, then checked: one of the two sees the other). */
export async function startRunning(dir = DIR, pid = process.pid): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  for (;;) {
    fs.writeFileSync(marker(dir, "running", pid), String(pid));
    if (others(dir, "wanted", pid).length === 0) return;
    fs.rmSync(marker(dir, "running", pid), { force: true });
    while (others(dir, "wanted", pid).length > 0) await sleep(POLL_MS);
  }
}

export function stopRunning(dir = DIR, pid = process.pid): void {
  fs.rmSync(marker(dir, "running", pid), { force: true });
}

/** For the file that needs it, once it knows it will run (its mocha timeout lifted for the wait). */
export async function haveTheMachineAlone(ctx: Mocha.Context): Promise<void> {
  ctx.timeout(0); // the wait is for the files under way to end, however long they take
  await wantTheMachine();
}

process.once("exit", () => {
  giveTheMachineBack();
  stopRunning();
});

/** Every file: marked running from its start to its end, after waiting while a file wants the machine alone. */
export const machineSoloHooks: Mocha.RootHookObject = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    this.timeout(0);
    await startRunning();
  },
  afterAll(): void {
    giveTheMachineBack(); // a file that asked and did not give it back (its after hook failed)
    stopRunning();
  },
};
