/**
 * `npm run fake-identification`: the fake identification service on `FAKE_ID_PORT` (8200,
 * the default `recognition.url`), for trying `recognition.backend: "remote"` by hand.
 */
import { startFakeIdentificationServer } from "./identification-server";

void (async () => {
  const server = await startFakeIdentificationServer(Number(process.env.FAKE_ID_PORT ?? 8200));
  console.log(`fake identification service on ${server.url} (POST /identify, /identify-batch, /enroll)`);
})();
