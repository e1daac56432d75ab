/**
 * Step records as a run's row stores them: compact arrays that read back as the records the
 * engine kept, for steps of the snapshot and for one added after the run started; rows in
 * the earlier object form read as they are.
 */
import assert from "node:assert/strict";
import { decodeStepRecords, encodeStepRecords } from "../../../../../../runtime/care/core/pipeline/engine/step-records-codec";
import type { GraphSnapshot } from "../../../../../../runtime/care/core/pipeline/engine/graph-snapshot";
import type { StepRecord } from "../../../../../../runtime/care/core/pipeline/engine/run-state";

const graph = {
  steps: [
    { id: 4, node_id: "a", label: "Check the hall", step_type: "condition", config: {}, enabled: true, order: 1 },
    { id: 5, node_id: "b", label: "Ask Rose", step_type: "interactive_prompt", config: {}, enabled: true, order: 2 },
  ],
} as unknown as GraphSnapshot;

const started = "2026-06-01T08:00:00.000Z";

describe("step records codec", () => {
  it("reads back every field of the records the engine kept", () => {
    const records: StepRecord[] = [
      {
        step_id: 4,
        label: "Check the hall",
        step_type: "condition",
        started_at: "2026-06-01T08:00:00.012Z",
        elapsed_ms: 0.041,
        success: true,
        status: "success",
        output_ports: ["true"],
      },
      {
        step_id: 5,
        label: "Ask Rose",
        step_type: "interactive_prompt",
        started_at: "2026-06-01T08:00:00.020Z",
        elapsed_ms: 3.5,
        success: true,
        status: "waiting",
        output_ports: [],
      },
      {
        step_id: 0,
        label: "added later",
        step_type: "notification",
        started_at: "2026-06-01T08:05:00.000Z",
        elapsed_ms: 12,
        success: false,
        status: "failed",
        output_ports: ["main"],
        error: "webhook said 500",
      },
      {
        step_id: 4,
        label: "Check the hall",
        step_type: "condition",
        started_at: "2026-06-01T08:05:01.000Z",
        elapsed_ms: 2,
        success: true,
        status: "success",
        output_ports: ["main"],
        warning: "reached nobody (pwa_popup_text: no web app client is connected to /ws)",
        receipts: [
          { channel: "pwa_popup_text", delivered: false, detail: "no web app client is connected to /ws" },
          { channel: "eink", delivered: true },
        ],
      },
    ];
    const text = encodeStepRecords(records, graph, Date.parse(started));
    assert.deepEqual(decodeStepRecords(JSON.parse(text), graph, started), records);
    assert.ok(text.length < JSON.stringify(records).length / 2, `compact: ${text}`);
    assert.ok(!text.includes("Check the hall"), "labels of snapshot steps come from the snapshot");
  });

  it("reads records stored as objects as they are", () => {
    const old = [
      { step_id: 4, label: "x", step_type: "condition", started_at: started, elapsed_ms: 1, success: true, status: "success", output_ports: ["true"] },
    ];
    assert.deepEqual(decodeStepRecords(old, graph, started), old);
  });
});
