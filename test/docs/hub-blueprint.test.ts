/**
 * The Home Assistant blueprint in docs/hub.md (issue 44 §4) is valid YAML, a blueprint of the
 * automation domain, and every `!input` it uses is one of the inputs it declares (and each
 * declared input is used). Parsed with `yaml` (a dependency already), `!input` as a custom tag.
 * A careflow already down when Home Assistant restarts is told: a `homeassistant: start` trigger
 * whose branch waits for a beat no longer than the limit and a minute, then tells the phones.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { parse, type ScalarTag } from "yaml";

const ROOT = path.resolve(__dirname, "../../..");

interface Blueprint {
  blueprint: { name: string; domain: string; input: Record<string, { name: string; selector: Record<string, unknown> }> };
  mode: string;
  trigger: Array<Record<string, unknown>>;
  action: Array<{ choose?: Array<{ conditions: Array<Record<string, unknown>>; sequence: Array<Record<string, unknown>> }> }>;
}

describe("the heartbeat blueprint in docs/hub.md", () => {
  const doc = fs.readFileSync(path.join(ROOT, "docs/hub.md"), "utf8");
  const block = /```yaml\n(blueprint:[\s\S]*?)```/.exec(doc)?.[1];

  it("parses as a blueprint whose inputs are declared and used", () => {
    assert.ok(block, "a ```yaml block starting with blueprint:");
    const used = new Set<string>();
    const input: ScalarTag = {
      tag: "!input",
      resolve: (name: string) => {
        used.add(name);
        return { input: name };
      },
    };
    const bp = parse(block, { customTags: [input] }) as Blueprint;
    assert.equal(bp.blueprint.domain, "automation");
    const declared = Object.keys(bp.blueprint.input).sort();
    assert.deepEqual(declared, ["heartbeat_entity", "max_age_minutes", "notify_services"]);
    assert.deepEqual([...used].sort(), declared);
    assert.equal((bp.blueprint.input.heartbeat_entity as { default?: string }).default, "sensor.careflow_heartbeat");
    assert.equal((bp.blueprint.input.max_age_minutes as { default?: number }).default, 5);
    assert.ok(bp.trigger.length >= 1 && bp.action.length >= 1);
  });

  it("tells the family at Home Assistant's start when no beat comes within the limit and a minute", () => {
    const bp = parse(block!, { customTags: [{ tag: "!input", resolve: (name: string) => ({ input: name }) }] }) as Blueprint;
    const start = bp.trigger.find((t) => t.platform === "homeassistant");
    assert.deepEqual(start, { platform: "homeassistant", id: "started", event: "start" });
    assert.equal(bp.mode, "single", "a second start or a beat does not run it twice");
    const branch = bp.action[0].choose!.find((c) => c.conditions.some((k) => k.condition === "trigger" && k.id === "started"));
    assert.ok(branch, "a branch for the start trigger");
    const [wait, tell] = branch.sequence as [Record<string, any>, Record<string, any>];
    assert.match(wait.wait_template, /states\(heartbeat_entity\)/);
    assert.deepEqual(wait.timeout, { minutes: "{{ max_age_minutes + 1 }}" });
    assert.equal(wait.continue_on_timeout, true);
    assert.equal(tell.if[0].value_template, "{{ not wait.completed }}", "told only when no beat came");
    const services = (tell.then as Array<Record<string, any>>).filter((s) => s.repeat).map((s) => s.repeat.sequence[0].data.title);
    assert.deepEqual(services, ["careflow is not answering", "careflow is back"]);
  });

  it("ships a systemd unit that restarts careflow on failure", () => {
    const unit = /```ini\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
    assert.match(unit, /^Restart=on-failure$/m);
    assert.match(unit, /^ExecStart=.*dist\/runtime\/app\/main\.js$/m);
  });
});
