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
      "dist/test/runtime/household/media/media-root.test.js",
      "dist/test/runtime/household/media/media-two-stores.test.js",
      "dist/test/runtime/household/media/media-cluster.test.js",
      "dist/test/runtime/care/services/knowledge/card-media-sweep.test.js",
      "dist/test/runtime/care/core/pipeline/runs/run-frames.test.js",
      "dist/test/runtime/platform/db/retention-job.test.js",
    ],
  },
  // A run that waits (a countdown, a wait step, a prompt) resumes once, at its time, after a
  // restart or a kill -9 too: its deadlines, the claim of a due parking, the runs a stop cut
  // short and the steps interrupted mid-flight, and (two instances) the runs of a dead one adopted.
  "run-resume": {
    mutate: [
      "runtime/care/core/pipeline/engine/run-resume.ts",
      "runtime/care/core/pipeline/engine/held-runs.ts",
      "runtime/care/core/pipeline/engine/run-deadlines.ts",
      "runtime/care/core/pipeline/engine/recovery.ts",
      "runtime/care/core/pipeline/engine/interrupted-runs.ts",
      "runtime/care/core/pipeline/engine/interrupted-steps.ts",
      "runtime/care/core/pipeline/engine/run-adoption.ts",
    ],
    tests: [
      "dist/test/runtime/care/core/pipeline/engine/restart.test.js",
      "dist/test/runtime/care/core/pipeline/engine/interrupted-step.test.js",
      "dist/test/runtime/care/core/pipeline/engine/graceful-stop.test.js",
      "dist/test/runtime/care/core/pipeline/engine/timeouts.test.js",
      "dist/test/runtime/care/core/pipeline/engine/park-signals.test.js",
      "dist/test/runtime/care/core/pipeline/engine/cluster-runs.test.js",
      "dist/test/runtime/care/core/pipeline/engine/shared-runs.test.js",
      // In-process restarts and waits: the files above restart a service process, whose code
      // Stryker's coverage does not see (docs/mutation.md, "Run resume").
      "dist/test/runtime/care/core/pipeline/engine/engine.test.js",
      "dist/test/runtime/care/core/pipeline/engine/deploy-window.test.js",
      "dist/test/runtime/app/backup/backup-roundtrip.test.js",
      "dist/test/runtime/care/services/interactive/interactive.api.test.js",
    ],
  },
  // A rehearsal records what a rule would have done and does none of it: every effect kept (a
  // message, a hub call, speech, e-ink, a card or quiz, a prompt) with its words, and every
  // outside service not asked said so.
  "rehearsal-effects": {
    mutate: [
      "runtime/care/surfaces/rehearsal/rehearsal-services.ts",
      "runtime/care/surfaces/rehearsal/would-send.ts",
      "runtime/care/surfaces/rehearsal/would-say.ts",
    ],
    tests: [
      "dist/test/runtime/care/surfaces/rehearsal/rehearse.api.test.js",
      "dist/test/runtime/care/surfaces/rehearsal/rehearse-timers.test.js",
      "dist/test/runtime/care/surfaces/rehearsal/rehearse-hand-runs.test.js",
      "dist/test/runtime/care/surfaces/rehearsal/rehearsal-services.test.js",
    ],
  },
  "lease-fencing": {
    mutate: ["runtime/platform/cluster/cluster.store.ts", "runtime/platform/cluster/leases.ts"],
    tests: ["dist/test/runtime/platform/cluster/lease-fencing.test.js", "dist/test/runtime/platform/cluster/pg-leases.test.js"],
  },
};
