/**
 * The sidebar's browser script (compiled from editor-plugins/runs-sidebar/browser/sidebar.ts)
 * tells the server it is watching: on load, then every 20 s.
 */
import assert from "node:assert/strict";
import vm from "node:vm";
import { browserScript } from "../../../nodes/_kit/node-red/browser-scripts";

type Fn = (...args: unknown[]) => unknown;

describe("runs sidebar editor script", () => {
  it("posts careflow/runs/watch when it loads and every 20 s after", () => {
    const posts: unknown[] = [];
    const intervals: Array<{ fn: Fn; ms: number }> = [];
    // A jQuery stand-in: every call chains; only the ajax calls are recorded.
    const chain: Fn = new Proxy(() => chain, { get: (_t, prop) => (prop === "is" ? () => true : () => chain) });
    const $ = Object.assign((..._args: unknown[]) => chain, {
      ajax: (opts: object) => posts.push({ ...opts }), // copied out of the vm realm
      getJSON: () => undefined,
    });
    let plugin: { onadd: () => void } | undefined;
    const context = {
      $,
      setTimeout: () => 0,
      setInterval: (fn: Fn, ms: number) => intervals.push({ fn, ms }),
      RED: {
        plugins: { registerPlugin: (_id: string, def: { onadd: () => void }) => (plugin = def) },
        sidebar: { addTab: () => undefined },
        comms: { subscribe: () => undefined },
        events: { on: () => undefined },
      },
    };
    vm.createContext(context);
    vm.runInContext(browserScript("runs-sidebar"), context);
    plugin!.onadd();
    assert.deepEqual(posts, [{ method: "POST", url: "careflow/runs/watch" }]);
    const every = intervals.find((i) => i.ms === 20_000);
    assert.ok(every, "a 20 s interval");
    every.fn();
    assert.equal(posts.length, 2);
  });
});
