import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";

describe("GET /api/v1/pipeline/llm-models", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      settings: {
        llm: {
          models: [
            {
              id: "vision-vllm",
              name: "Qwen VL",
              api_type: "openai",
              base_url: "http://gpu-box:8000/v1",
              model: "Qwen/Qwen2-VL-7B-Instruct",
              api_key: "sk-very-secret",
              capabilities: ["text", "vision"],
              guided_decoding: true,
            },
            {
              id: "llava",
              api_type: "ollama",
              base_url: "http://gpu-box:11434",
              model: "llava:13b",
              capabilities: ["vision"],
              max_tokens: 1024,
              timeout: 30,
              max_retries: 1,
            },
          ],
        },
      },
    });
  });
  after(() => t.close());

  it("lists the registry with defaults applied and without api keys", async () => {
    const res = await t.get("/api/v1/pipeline/llm-models");
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, [
      {
        id: "vision-vllm",
        name: "Qwen VL",
        api_type: "openai",
        base_url: "http://gpu-box:8000/v1",
        model: "Qwen/Qwen2-VL-7B-Instruct",
        capabilities: ["text", "vision"],
        max_tokens: 4096,
        timeout: 60,
        guided_decoding: true,
        max_retries: 3,
      },
      {
        id: "llava",
        name: "llava",
        api_type: "ollama",
        base_url: "http://gpu-box:11434",
        model: "llava:13b",
        capabilities: ["vision"],
        max_tokens: 1024,
        timeout: 30,
        guided_decoding: false,
        max_retries: 1,
      },
    ]);
    assert.ok(!res.text.includes("sk-very-secret"));
    assert.ok(!res.text.includes("api_key"));
  });

  it("is readable by a caregiver and needs a key", async () => {
    assert.equal((await t.get("/api/v1/pipeline/llm-models", KEYS.caregiver)).status, 200);
    assert.equal((await t.get("/api/v1/pipeline/llm-models", null)).status, 401);
  });
});
