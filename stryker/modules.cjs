// The care-safety modules `npm run mutation -- <name>` mutates (issue 50), one group per run: the
// sources Stryker mutates and the compiled test files that are meant to kill those mutants.
// A group's tests are its own module's, not the whole suite: a mutant only the suite at large
// notices is one the module's tests do not pin down, which is what the score is meant to show.
// Tests of two instances need PostgreSQL (CAREFLOW_TEST_DATABASE_URL, else the local server).
// `typeCheck: true` adds Stryker's TypeScript checker to a group (a type check per mutant: slow).
module.exports = {
  escalation: {
    mutate: ["runtime/care/services/notify/escalation.ts"],
    tests: ["dist/test/runtime/care/services/notify/escalation.test.js", "dist/test/runtime/care/services/notify/escalation-leases.test.js"],
  },
  // The prompt store, answering (first outcome wins), the countdown's timeout outcome and its
  // follow-ups (alerts acknowledged or raised), and the replay of open prompts on /ws.
  "interactive-prompts": {
    mutate: ["runtime/care/services/interactive/*.ts", "runtime/household/prompts/prompts.store.ts"],
    tests: [
      "dist/test/runtime/household/prompts/prompts.store.test.js",
      "dist/test/runtime/care/services/interactive/interactive.api.test.js",
      "dist/test/runtime/care/services/interactive/replay.api.test.js",
      "dist/test/nodes/steps/interactive_prompt/interactive_prompt.handler.test.js",
    ],
  },
  // Whether a fired rule runs: its filters (OR within a type, AND across), dependencies,
  // cool-off and daily limit, in that order, and what the run is told when it is held.
  "rule-gates": {
    mutate: ["runtime/care/core/pipeline/gates/*.ts"],
    tests: [
      "dist/test/runtime/care/core/pipeline/gates/check-gates.test.js",
      "dist/test/runtime/care/core/pipeline/gates/cool-off.gate.test.js",
      "dist/test/runtime/care/core/pipeline/gates/daily-limit.gate.test.js",
      "dist/test/runtime/care/core/pipeline/gates/dependencies.gate.test.js",
      "dist/test/runtime/care/core/pipeline/gates/filters.gate.test.js",
    ],
  },
  // What a tracking event does to where a person is: the applier's checks and plan, the fusion
  // of evidence into one location, the step from one room to the next, and late evidence.
  "tracking-apply": {
    mutate: [
      "runtime/household/cts/tracking-events.applier.ts",
      "runtime/household/tracking/location-fusion.ts",
      "runtime/household/tracking/location-step.ts",
      "runtime/household/tracking/late-evidence.ts",
    ],
    tests: [
      "dist/test/runtime/household/cts/tracking-events-applier.test.js",
      "dist/test/runtime/household/cts/cts-streams.test.js",
      "dist/test/runtime/household/cts/cts-resilience.test.js",
      "dist/test/runtime/household/cts/live-frames.test.js",
      "dist/test/runtime/household/tracking/location-fusion.api.test.js",
      "dist/test/runtime/household/tracking/tracking-fixes.test.js",
      "dist/test/runtime/household/tracking/presence-chain.test.js",
      "dist/test/runtime/household/tracking/late-evidence.test.js",
    ],
  },
  // Which frames and objects a sweep deletes: the expired rows, then only the objects this store
  // wrote that nothing names (never another store's), in chunks under the lock, and the timer
  // that sweeps again when the oldest frame expires; the objects of rows the retention pruned.
  "media-sweep": {
    mutate: ["runtime/household/media/media.service.ts:350-501", "runtime/household/media/media-root.ts"],
    tests: [
      "dist/test/runtime/household/media/media.test.js",
      "dist/test/runtime/household/media/media-two-stores.test.js",
      "dist/test/runtime/household/media/media-cluster.test.js",
      "dist/test/runtime/care/services/knowledge/card-media-sweep.test.js",
      "dist/test/runtime/care/core/pipeline/runs/run-frames.test.js",
    ],
  },
  "lease-fencing": {
    mutate: ["runtime/platform/cluster/cluster.store.ts", "runtime/platform/cluster/leases.ts"],
    tests: ["dist/test/runtime/platform/cluster/lease-fencing.test.js", "dist/test/runtime/platform/cluster/pg-leases.test.js"],
  },
};
