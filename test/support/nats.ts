/**
 * The machine's NATS JetStream broker for tests: whether it answers (tests skip, saying so,
 * only when it truly does not), a unique stream prefix per run, and a second broker of the
 * test's own on another port for the restart tests (never the machine's one).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { skipForMissingService } from "./missing-service";

export const NATS_URL = process.env.CAREFLOW_TEST_NATS_URL ?? "nats://127.0.0.1:4222";
export const NATS_SERVER_BIN = "/usr/sbin/nats-server";

export function portOpen(url: string): Promise<boolean> {
  const u = new URL(url.replace(/^nats:/, "http:"));
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 4222) });
    socket.setTimeout(1000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Skips the suite with a visible message when no broker answers. */
export async function requireNats(ctx: Mocha.Context): Promise<void> {
  if (await portOpen(NATS_URL)) return;
  skipForMissingService(ctx, `no NATS JetStream broker at ${NATS_URL} (start one: nats-server -js)`);
}

let counter = 0;
/** Letters and digits only: a prefix no other run shares. */
export const uniquePrefix = (what: string): string => `t${what}${process.pid}${Date.now().toString(36)}${counter++}`;

export interface OwnBroker {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/** A broker of this test's own (its own port and store dir), stopped and started at will. */
export async function ownBroker(port: number): Promise<OwnBroker> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-nats-"));
  const url = `nats://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(NATS_SERVER_BIN, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], { stdio: "ignore" });
    const until = Date.now() + 10_000;
    while (!(await portOpen(url))) {
      if (Date.now() > until) throw new Error(`nats-server did not start on ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGTERM");
    await exited;
  };
  await start();
  return {
    url,
    start,
    stop,
    dispose: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Removes a run's streams (and so its consumers) from the broker: test runs leave nothing behind. */
export async function deleteStreams(url: string, prefix: string): Promise<void> {
  const { connect } = await import("@nats-io/transport-node");
  const { jetstreamManager } = await import("@nats-io/jetstream");
  const { allStreamNames } = await import("../../runtime/household/cts/cts-streams");
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for (const n of allStreamNames(prefix)) await jsm.streams.delete(n.stream).catch(() => false);
  } finally {
    await nc.close();
  }
}
