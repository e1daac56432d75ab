/**
 * What the by-hand fakes (`npm run fake-hub`, `npm run fake-chat`) share: typed commands read
 * from stdin one line at a time (each finishes before the next starts), `quit` or `exit` and
 * SIGINT/SIGTERM closing the fake. Without a terminal (stdin closed) the fake keeps serving.
 */
import readline from "node:readline";

export function runConsole(handle: (line: string) => Promise<string | null | void> | string | null, close: () => Promise<void>): void {
  const shutdown = async () => {
    await close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  const rl = readline.createInterface({ input: process.stdin });
  let queue = Promise.resolve();
  rl.on("line", (line) => {
    queue = queue.then(async () => {
      if (line.trim() === "quit" || line.trim() === "exit") return shutdown();
      try {
        const out = await handle(line);
        if (out) console.log(out);
      } catch (err) {
        console.log(`error: ${(err as Error).message}`);
      }
    });
  });
}
