import express from "express";
import multer from "multer";
import { listen, ReplyQueue, sendReply, type FakeReply, type FakeServerBase } from "./perception-kit";

/**
 * A fake scene-analysis service speaking its HTTP protocol: `POST /analyze` with the image
 * in the multipart field `image` and the `run_*` flags in the query, `GET /health`. Without a
 * script it answers `analysis` (a kitchen with a knife near the stove unless changed),
 * leaving out what the flags did not ask for. Each request records the image it got.
 */
export interface FakeSceneServer extends FakeServerBase {
  /** The answer of an unscripted /analyze (flags applied). */
  analysis: Record<string, any>;
  /** Per request: the uploaded image's bytes and type. */
  images: Array<{ bytes: Buffer; mimetype: string; filename: string }>;
}

export const defaultAnalysis = (): Record<string, any> => {
  const knife = { label: "knife", confidence: 0.91, bbox: [10, 20, 60, 80], class_id: 43 };
  return {
    detections: [knife, { label: "cup", confidence: 0.77, bbox: [100, 40, 130, 90], class_id: 41 }],
    description: "A kitchen counter with a knife next to the stove.",
    embedding: Array.from({ length: 768 }, (_, i) => (i === 0 ? 1 : 0)),
    hazards: [{ name: "knife_near_edge", severity: "warning", description: "A knife lies near the counter's edge.", detection: knife }],
    detector_available: true,
    describer_available: true,
    embedder_available: true,
  };
};

export async function startFakeSceneAnalysisServer(): Promise<FakeSceneServer> {
  const replies = new ReplyQueue();
  const app = express();
  const upload = multer({ storage: multer.memoryStorage() });
  const state = {
    analysis: defaultAnalysis(),
    requests: [] as FakeServerBase["requests"],
    images: [] as FakeSceneServer["images"],
  };
  app.get("/health", (_req, res) => res.json({ status: "ok" }));
  app.post("/analyze", upload.single("image"), async (req, res) => {
    state.requests.push({ method: req.method, path: req.path, query: { ...req.query }, headers: { "x-sensor-id": req.get("x-sensor-id") }, body: req.body });
    if (req.file) state.images.push({ bytes: req.file.buffer, mimetype: req.file.mimetype, filename: req.file.originalname });
    const scripted = replies.next();
    if (scripted) return sendReply(res, scripted);
    if (!req.file) return void res.status(422).json({ detail: "field 'image' is required" });
    const flag = (name: string) => req.query[name] !== "false";
    const a = state.analysis;
    res.json({
      ...a,
      detections: flag("run_detect") ? a.detections : [],
      description: flag("run_describe") ? a.description : "",
      embedding: flag("run_embed") ? a.embedding : [],
      hazards: flag("run_hazards") && flag("run_detect") ? a.hazards : [],
    });
  });
  const server = await listen(app);
  return {
    url: server.url,
    get requests() {
      return state.requests;
    },
    get images() {
      return state.images;
    },
    get analysis() {
      return state.analysis;
    },
    set analysis(a) {
      state.analysis = a;
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
      state.images.length = 0;
      replies.queue.length = 0;
      replies.always = null;
      state.analysis = defaultAnalysis();
    },
    close: server.close,
  };
}
