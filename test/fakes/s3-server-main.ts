/**
 * `npm run fake-s3`: the fake S3-compatible store (s3-server.ts) on a fixed port, for trying
 * `media.store_url` (or the tracking keyframes) without MinIO. Every request's signature is
 * checked as S3 checks it, and each is printed with how it ended (`ok`, `NoSuchKey`,
 * `SignatureDoesNotMatch` ...). Objects live in memory: a restart forgets them.
 *
 * FAKE_S3_PORT (default 9000; 0 picks a free one), FAKE_S3_ACCESS_KEY / FAKE_S3_SECRET_KEY
 * (default careflow / careflow-secret), FAKE_S3_REGION (us-east-1), FAKE_S3_BUCKET
 * (careflow-media, made at start), FAKE_S3_QUIET=1 prints only the first line. The first line
 * printed is always `fake S3 at <url>`.
 */
import { startFakeS3 } from "./s3-server";

async function main(): Promise<void> {
  const env = process.env;
  const accessKey = env.FAKE_S3_ACCESS_KEY || "careflow";
  const secretKey = env.FAKE_S3_SECRET_KEY || "careflow-secret";
  const region = env.FAKE_S3_REGION || "us-east-1";
  const bucket = env.FAKE_S3_BUCKET || "careflow-media";
  const quiet = env.FAKE_S3_QUIET === "1";
  const s3 = await startFakeS3({
    accessKey,
    secretKey,
    region,
    port: Number(env.FAKE_S3_PORT ?? 9000),
    log: quiet ? undefined : (line) => console.log(`[s3] ${line}`),
  });
  s3.createBucket(bucket);
  const host = new URL(s3.url).host;
  console.log(`fake S3 at ${s3.url}`);
  if (quiet) return;
  console.log(`  bucket     ${bucket} (in memory)
  region     ${region}
  for careflow: CAREFLOW_MEDIA_STORE_URL=http://${encodeURIComponent(accessKey)}:${encodeURIComponent(secretKey)}@${host}/${bucket}
  (or media.store_url in the settings file, and media.store_region: ${region})`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
