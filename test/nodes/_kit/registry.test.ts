/**
 * The generated registry is the only list of node types: it must match the folders, and
 * every spec in it must be complete and self-consistent.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { checkConfig, configJsonSchema, defaultConfig, migrateConfig } from "../../../nodes/_kit/config";
import { renderGenerated, sourceNodesDir } from "../../../nodes/_build/generate-registry";
import { renderNodeDocs } from "../../../nodes/_build/generate-docs";
import { generatedFiles } from "../../../nodes/_build/generated-files";
import { allSpecs } from "../../../nodes/_kit/registry-types";
import { nodeRedType } from "../../../nodes/_kit/types";
import { registry } from "../../../nodes/registry.generated";

describe("node registry", () => {
  it("is not stale: nodes/registry.generated.ts and the channel list match the node folders (run `npm run generate`)", () => {
    const dir = sourceNodesDir();
    for (const [rel, text] of renderGenerated(dir)) assert.equal(fs.readFileSync(path.join(dir, rel), "utf8"), text, rel);
  });

  it("keeps the rule trigger in its own folder with help text, like every node", () => {
    const help = path.join(sourceNodesDir(), "triggers", "rule", "rule.help.md");
    assert.ok(fs.existsSync(help), `missing ${help}`);
    assert.match(fs.readFileSync(help, "utf8"), /system_health/, "the help names every way a rule fires");
  });

  it("has unique Node-RED type ids", () => {
    const ids = allSpecs(registry).map(nodeRedType);
    assert.equal(new Set(ids).size, ids.length);
  });

  for (const spec of allSpecs(registry)) {
    describe(`${spec.kind} ${spec.type}`, () => {
      it("has a folder named after its type with help text", () => {
        const folder = { step: "steps", filter: "filters", channel: "channels" }[spec.kind];
        const help = path.join(sourceNodesDir(), folder, spec.type, `${spec.type}.help.md`);
        assert.ok(fs.existsSync(help), `missing ${help}`);
        assert.ok(fs.readFileSync(help, "utf8").trim().length > 40, "help says something");
      });

      it("validates its own defaults and publishes a JSON Schema", () => {
        const check = checkConfig(spec, defaultConfig(spec));
        assert.ok(check.ok, JSON.stringify(check));
        const schema = configJsonSchema(spec);
        assert.equal(schema.type, "object");
        assert.ok(schema.properties && Object.keys(schema.properties).length > 0, "has config fields");
        for (const [k, prop] of Object.entries(schema.properties!)) {
          assert.ok(prop.description, `${k} has a description`);
        }
      });

      it("rejects unknown config keys naming them", () => {
        const check = checkConfig(spec, { ...defaultConfig(spec), no_such_key: 1 });
        assert.equal(check.ok, false);
        if (!check.ok) assert.match(check.problems[0].message, /no_such_key/);
      });

      it("has a migration for every older config version", () => {
        for (let v = 1; v < spec.version; v++) assert.doesNotThrow(() => migrateConfig(spec, {}, v));
      });

      if (spec.kind === "step") {
        it("declares output ports and a category", () => {
          assert.ok(spec.outputPorts.length >= 1);
          assert.ok(["perception", "reasoning", "action", "flow"].includes(spec.category));
        });
      }
    });
  }
});

describe("node reference docs", () => {
  it("are not stale: docs/nodes matches the specs and help (run `npm run generate`)", () => {
    const root = path.resolve(sourceNodesDir(), "..");
    const pages = renderNodeDocs(sourceNodesDir());
    assert.equal(pages.size, allSpecs(registry).length);
    for (const [rel, text] of pages) {
      const file = path.join(root, rel);
      assert.ok(fs.existsSync(file), `${rel} is missing`);
      assert.equal(fs.readFileSync(file, "utf8"), text, `${rel} is stale`);
    }
    const committed = generatedFiles(root, path.join("docs", "nodes"), /\/(steps|filters|channels)\/[^/]+\.md$/);
    assert.deepEqual(committed.sort(), [...pages.keys()].sort(), "no page of a removed node is left behind");
  });
});
