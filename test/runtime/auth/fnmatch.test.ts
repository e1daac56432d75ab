import assert from "node:assert/strict";
import { fnmatch } from "../../../runtime/auth/fnmatch";

describe("fnmatch (Python fnmatchcase semantics)", () => {
  const cases: Array<[string, string, boolean]> = [
    ["GET /api/v1/rooms", "GET /api/v1/*", true],
    ["GET /api/v1/rules/3/steps", "GET /api/v1/*", true], // * crosses slashes, as in Python
    ["POST /api/v1/rooms", "GET /api/v1/*", false],
    ["POST /api/v1/alerts/7/action", "POST /api/v1/alerts/*/action", true],
    ["POST /api/v1/alerts/7/other", "POST /api/v1/alerts/*/action", false],
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
