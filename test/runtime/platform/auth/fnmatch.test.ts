import assert from "node:assert/strict";
import { fnmatch } from "../../../../runtime/platform/auth/fnmatch";

describe("permission patterns (fnmatch, wildcards held within a segment)", () => {
  const cases: Array<[string, string, boolean]> = [
    ["GET /api/v1/rooms", "GET /api/v1/*", true],
    ["GET /api/v1/rules/3/steps", "GET /api/v1/*", true], // a trailing /* covers any depth
    ["GET /api/v1", "GET /api/v1/*", false],
    ["GET /api/v1/", "GET /api/v1/*", false],
    ["POST /api/v1/rooms", "GET /api/v1/*", false],
    ["POST /api/v1/alerts/7/action", "POST /api/v1/alerts/*/action", true],
    ["POST /api/v1/alerts/7/other", "POST /api/v1/alerts/*/action", false],
    // An inner * stays within one segment: nothing that merely ends in /action.
    ["POST /api/v1/alerts/7/x/action", "POST /api/v1/alerts/*/action", false],
    ["POST /api/v1/rules/../rules/1/execute", "POST /api/v1/rules/*/execute", false],
    ["POST /api/v1/alerts//action", "POST /api/v1/alerts/*/action", true],
    ["GET /a/b", "GET /a?b", false], // ? is never a slash
    ["GET /a/b", "GET /a[/]b", false], // nor is a class
    ["GET /a/b", "GET /a[!x]b", false],
    ["DELETE /mcp", "*", true],
    ["DELETE /mcp/x/y", "**", true],
    ["GET /api/v1/x", "*", true],
    ["GET /a", "GET /?", true],
    ["GET /ab", "GET /?", false],
    ["GET /a", "GET /[abc]", true],
    ["GET /d", "GET /[!abc]", true],
    ["GET /a", "GET /[!abc]", false],
    ["get /api/v1/rooms", "GET /api/v1/*", false], // case-sensitive
    ["GET /api/v1/rooms.json", "GET /api/v1/rooms.json", true],
    ["GET /api/v1/roomsXjson", "GET /api/v1/rooms.json", false], // '.' is literal
    ["GET /[", "GET /[", true], // an unclosed class is a literal bracket
  ];
  for (const [subject, pattern, expected] of cases) {
    it(`${JSON.stringify(subject)} ${expected ? "matches" : "does not match"} ${JSON.stringify(pattern)}`, () => {
      assert.equal(fnmatch(subject, pattern), expected);
    });
  }
});
