/** A cleared slot's files leave with the media sweep; a filled slot's files stay and are served. */
import assert from "node:assert/strict";
import { sweepExpired } from "../../../../../runtime/household/media/media.service";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { fetchSigned, gradientJpeg, putPicture } from "./knowledge-test-support";

describe("knowledge pictures and the media sweep", () => {
  let t: TestApp;
  const clock = new ManualClock();
  before(async () => {
    t = await startTestApp({ clock });
  });
  after(() => t.close());

  it("keeps what a slot or a question names and purges a cleared slot's variants", async () => {
    const kept = (await t.post("/api/v1/info-cards", { title: "Kept", body_text: "b", layout_id: "single_hero" })).body;
    const cleared = (await t.post("/api/v1/info-cards", { title: "Cleared", body_text: "b", layout_id: "single_hero" })).body;
    const quiz = (await t.post("/api/v1/quizzes", { title: "Q" })).body;
    const question = (await t.post(`/api/v1/quizzes/${quiz.id}/questions`, { question_text: "Who?" })).body;
    await putPicture(t, `/api/v1/info-cards/${kept.id}/slots/0`, await gradientJpeg(900, 600));
    const goneSlot = (await putPicture(t, `/api/v1/info-cards/${cleared.id}/slots/0`, await gradientJpeg(600, 900))).body.slots[0];
    const qImage = (await putPicture(t, `/api/v1/quizzes/${quiz.id}/questions/${question.id}/image`, await gradientJpeg(700, 700))).body.image;
    await t.request("DELETE", `/api/v1/info-cards/${cleared.id}/slots/0`);

    clock.advance(5 * 60_000); // past the sweep's one-minute grace for fresh files
    const report = await sweepExpired(t.app.ctx);
    assert.equal(report.files, 3, "the cleared slot's original and its two variants");

    const keptSlot = (await t.get(`/api/v1/info-cards/${kept.id}`)).body.slots[0];
    for (const v of keptSlot.variants) assert.equal((await fetchSigned(t, v.url)).status, 200);
    assert.equal((await fetchSigned(t, keptSlot.original_url)).status, 200);
    const qv = (await t.get(`/api/v1/quizzes/${quiz.id}`)).body.questions[0].image.variants[0];
    assert.equal((await fetchSigned(t, qv.url)).status, 200);
    assert.equal(qImage.variants.length, 1);
    for (const v of goneSlot.variants) assert.equal((await fetchSigned(t, v.url)).status, 404);
  });
});
