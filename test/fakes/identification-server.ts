import express from "express";
import multer from "multer";
import { listen, ReplyQueue, sendReply, type FakeReply, type FakeServerBase } from "./perception-kit";

/**
 * A fake person-identification service speaking the spec's protocol (docs/decisions.md,
 * "Identification service protocol"): `POST /identify` (file `image`) and `POST
 * /identify-batch` (files `images`), both with the fields `threshold` and
 * `save_guest_images`; `POST /enroll` (fields `person_id`, `name`, files `images`), `DELETE
 * /enroll/{person_id}`, `GET /enrolled`, `GET /health`. It recognises no face: each frame is
 * answered by `frameAnswer` (by default the last enrolled person at 0.87 and an unknown guest
 * at 0.21), with detections under the threshold reported as `unknown`. With
 * `save_guest_images` a frame with a guest is kept under its date (`guests`).
 */
export interface FakeDetection {
  identity: string;
  confidence: number;
  bbox: number[];
  embedding?: number[];
}

export interface FakeIdentificationServer extends FakeServerBase {
  enrolled: Map<string, { name: string; embedding_count: number }>;
  /** Frames saved with unidentified guests, by date (YYYY-MM-DD). */
  guests: Map<string, Buffer[]>;
  /** The detections of the `index`-th frame of a request. */
  frameAnswer: (frame: Buffer, index: number) => FakeDetection[];
}

export async function startFakeIdentificationServer(port = 0): Promise<FakeIdentificationServer> {
  const replies = new ReplyQueue();
  const app = express();
  const upload = multer({ storage: multer.memoryStorage(), limits: { files: 30 } });
  const enrolled = new Map<string, { name: string; embedding_count: number }>();
  const guests = new Map<string, Buffer[]>();
  const state = {
    requests: [] as FakeServerBase["requests"],
    frameAnswer: (_frame: Buffer, _i: number): FakeDetection[] => {
      const last = [...enrolled.values()].pop();
      return [
        ...(last ? [{ identity: last.name, confidence: 0.87, bbox: [40, 30, 120, 130] }] : []),
        { identity: "guest", confidence: 0.21, bbox: [300, 40, 370, 140] },
      ];
    },
  };
  const answer = (frames: Buffer[], body: Record<string, string>): FakeDetection[][] => {
    const threshold = Number(body.threshold ?? 0.4);
    return frames.map((f, i) => {
      const dets = state.frameAnswer(f, i).map((d) => (d.confidence < threshold ? { ...d, identity: "unknown" } : d));
      if (body.save_guest_images === "true" && dets.some((d) => d.identity === "unknown")) {
        const day = new Date().toISOString().slice(0, 10);
        guests.set(day, [...(guests.get(day) ?? []), f]);
      }
      return dets;
    });
  };
  const record = (req: express.Request): void =>
    void state.requests.push({ method: req.method, path: req.path, query: { ...req.query }, headers: {}, body: req.body });
  app.get("/health", (_req, res) => res.json({ status: "ok" }));
  app.post("/identify", upload.single("image"), (req, res) => {
    record(req);
    const scripted = replies.next();
    if (scripted) return void sendReply(res, scripted);
    if (!req.file) return void res.status(422).json({ detail: "field 'image' is required" });
    res.json({ detections: answer([req.file.buffer], req.body)[0] });
  });
  app.post("/identify-batch", upload.array("images"), (req, res) => {
    record(req);
    const scripted = replies.next();
    if (scripted) return void sendReply(res, scripted);
    const files = (req.files ?? []) as Express.Multer.File[];
    if (!files.length) return void res.status(422).json({ detail: "field 'images' is required" });
    res.json({
      results: answer(
        files.map((f) => f.buffer),
        req.body,
      ).map((detections, index) => ({ index, detections })),
    });
  });
  app.post("/enroll", upload.array("images"), (req, res) => {
    record(req);
    const files = (req.files ?? []) as Express.Multer.File[];
    if (!req.body.person_id || !files.length) return void res.status(422).json({ detail: "person_id and images are required" });
    enrolled.set(req.body.person_id, { name: req.body.name ?? req.body.person_id, embedding_count: files.length });
    res.json({ person_id: req.body.person_id, embedding_count: files.length });
  });
  app.delete("/enroll/:id", (req, res) => {
    record(req);
    enrolled.delete(req.params.id);
    res.status(204).end();
  });
  app.get("/enrolled", (_req, res) => res.json([...enrolled].map(([person_id, e]) => ({ person_id, ...e }))));
  const server = await listen(app, port);
  return {
    url: server.url,
    get requests() {
      return state.requests;
    },
    script: (...r: FakeReply[]) => void replies.queue.push(...r),
    get always() {
      return replies.always;
    },
    set always(r) {
      replies.always = r;
    },
    reset() {
      state.requests.length = 0;
      replies.queue.length = 0;
      replies.always = null;
    },
    enrolled,
    guests,
    get frameAnswer() {
      return state.frameAnswer;
    },
    set frameAnswer(fn) {
      state.frameAnswer = fn;
    },
    close: server.close,
  };
}
