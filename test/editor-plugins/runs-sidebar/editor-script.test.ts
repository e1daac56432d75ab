/**
 * The sidebar's browser script (compiled from editor-plugins/runs-sidebar/browser/sidebar.ts)
 * tells the server it is watching: on load, then every 20 s.
 */
import assert from "node:assert/strict";
import vm from "node:vm";
import { browserScript } from "../../../editor-plugins/browser-scripts";

type Fn = (...args: unknown[]) => unknown;

describe("runs sidebar editor script", () => {
  it("posts careflow/runs/watch when it loads, every 20 s while taken, and after 3 s doubling when refused", () => {
    const posts: Array<{ done?: Fn; fail?: Fn }> = [];
    const timers: Array<{ fn: Fn; ms: number }> = [];
    // A jQuery stand-in: every call chains; each ajax call is recorded with its done/fail callbacks.
    const chain: Fn = new Proxy(() => chain, { get: (_t, prop) => (prop === "is" ? () => true : () => chain) });
    const $ = Object.assign((..._args: unknown[]) => chain, {
      ajax: (opts: { method: string; url: string }) => {
        assert.deepEqual({ ...opts }, { method: "POST", url: "careflow/runs/watch" });
        const post: { done?: Fn; fail?: Fn } = {};
        posts.push(post);
        const deferred = {
          done: (fn: Fn) => ((post.done = fn), deferred),
          fail: (fn: Fn) => ((post.fail = fn), deferred),
        };
        return deferred;
      },
      getJSON: () => undefined,
    });
    let plugin: { onadd: () => void } | undefined;
    const context = {
      $,
      setTimeout: (fn: Fn, ms: number) => timers.push({ fn, ms }),
      clearTimeout: () => undefined,
      setInterval: () => 0,
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
    assert.equal(posts.length, 1, "a watch when it loads");
    const next = () => {
      const t = timers.filter((x) => x.ms >= 3000).at(-1)!;
      timers.length = 0;
      return t;
    };
    posts[0].done!();
    const every = next();
    assert.equal(every.ms, 20_000, "taken: the next in 20 s");
    every.fn();
    assert.equal(posts.length, 2);
    posts[1].fail!();
    const retry = next();
    assert.equal(retry.ms, 3000, "refused: the next try in 3 s");
    retry.fn();
    posts[2].fail!();
    assert.equal(next().ms, 6000, "then twice as long");
  });
});
