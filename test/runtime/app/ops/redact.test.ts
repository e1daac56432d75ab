/** Settings as the admin config view shows them: a URL's password is a secret whatever its key's name. */
import assert from "node:assert/strict";
import { redactSecrets } from "../../../../runtime/app/ops/redact";

describe("redactSecrets", () => {
  it("hides the password of a URL (the media store's secret key) and leaves other URLs alone", () => {
    const out = redactSecrets({
      media: { store_url: "http://careflow:s%2Fcret@127.0.0.1:9000/careflow-media", signed_url_ttl_seconds: 900 },
      app: { public_url: "https://care.example" },
      list: ["http://user@host/x"],
    }) as { media: { store_url: string; signed_url_ttl_seconds: number }; app: { public_url: string }; list: string[] };
    assert.equal(out.media.store_url, "http://careflow:***@127.0.0.1:9000/careflow-media");
    assert.equal(out.media.signed_url_ttl_seconds, 900);
    assert.equal(out.app.public_url, "https://care.example");
    assert.deepEqual(out.list, ["http://user@host/x"]);
  });
});
