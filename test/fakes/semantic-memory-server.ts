import express from "express";
import { listen, ReplyQueue, sendReply, type FakeReply, type FakeServerBase } from "./perception-kit";

/**
 * A fake semantic-memory service speaking its HTTP protocol: room trends
 * (`GET /api/v1/trends/{room_id}/current`, 404 for a room it has none of, and
 * `…/snapshots?since_hours=N`), object presence (`GET /api/v1/objects?room_id&since_minutes`)
 * observation ingest (`POST /api/v1/observations`, kept in `observations`) and observation
 * search (`POST /api/v1/observations/search`). Unscripted requests are
 * answered from `trends`, `snapshots`, `objects` and `observations`, filtered as the service
 * would (room, limit).
 */
export interface FakeMemoryServer extends FakeServerBase {
  trends: Record<string, Record<string, any>>;
  snapshots: Record<string, Array<Record<string, any>>>;
  objects: Record<string, Array<Record<string, any>>>;
  observations: Array<Record<string, any>>;
}

export async function startFakeSemanticMemoryServer(): Promise<FakeMemoryServer> {
  const replies = new ReplyQueue();
  const requests: FakeServerBase["requests"] = [];
  const data = {
    trends: {} as FakeMemoryServer["trends"],
    snapshots: {} as FakeMemoryServer["snapshots"],
    objects: {} as FakeMemoryServer["objects"],
    observations: [] as FakeMemoryServer["observations"],
  };
  const app = express();
  app.use(express.json());
  app.use((req, res, next) => {
    requests.push({ method: req.method, path: req.path, query: { ...req.query }, headers: {}, body: req.body });
    const scripted = replies.next();
    if (scripted) return void sendReply(res, scripted);
    next();
  });
  app.get("/health", (_req, res) => res.json({ status: "ok" }));
  app.get("/api/v1/trends/:room/current", (req, res) => {
    const t = data.trends[req.params.room];
    if (!t) return void res.status(404).json({ detail: `no trend for room ${req.params.room}` });
    res.json({ room_id: req.params.room, as_of: "2026-11-22T10:00:00Z", baseline_available: true, ...t });
  });
  app.get("/api/v1/trends/:room/snapshots", (req, res) => res.json(data.snapshots[req.params.room] ?? []));
  app.get("/api/v1/objects", (req, res) => res.json(data.objects[String(req.query.room_id)] ?? []));
  // Observation ingest (scene samples): the service's pydantic model refuses a body without
  // room_id (422); the stored record is answered with its id.
  app.post("/api/v1/observations", (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const lists = ["object_list", "hazard_flags", "embedding"].filter((k) => b[k] !== undefined && !Array.isArray(b[k]));
    if (typeof b.room_id !== "string" || lists.length)
      return void res.status(422).json({ detail: `invalid observation: ${typeof b.room_id !== "string" ? "room_id" : lists.join(", ")}` });
    const now = new Date().toISOString();
    const record = {
      id: data.observations.length + 1,
      room_id: b.room_id,
      description: typeof b.description === "string" ? b.description : "",
      object_list: (b.object_list as string[] | undefined) ?? [],
      hazard_flags: (b.hazard_flags as string[] | undefined) ?? [],
      observed_at: typeof b.observed_at === "string" ? b.observed_at : now,
      source: typeof b.source === "string" ? b.source : "scene_intel",
      created_at: now,
    };
    data.observations.push({ ...record, embedding: b.embedding ?? [] });
    res.status(201).json(record);
  });
  app.post("/api/v1/observations/search", (req, res) => {
    const { room_id, limit } = req.body as { room_id: string | null; limit: number };
    res.json(data.observations.filter((o) => !room_id || o.room_id === room_id).slice(0, limit ?? 5));
  });
  app.use((req, res) => res.status(404).json({ detail: `no route ${req.method} ${req.path}` }));
  const server = await listen(app);
  return {
    url: server.url,
    requests,
    get trends() {
      return data.trends;
    },
    set trends(v) {
      data.trends = v;
    },
    get snapshots() {
      return data.snapshots;
    },
    set snapshots(v) {
      data.snapshots = v;
    },
    get objects() {
      return data.objects;
    },
    set objects(v) {
      data.objects = v;
    },
    get observations() {
      return data.observations;
    },
    set observations(v) {
      data.observations = v;
    },
    script: (...r: FakeReply[]) => void replies.queue.push(...r),
    get always() {
      return replies.always;
    },
    set always(r) {
      replies.always = r;
    },
    reset() {
      requests.length = 0;
      replies.queue.length = 0;
      replies.always = null;
      data.trends = {};
      data.snapshots = {};
      data.objects = {};
      data.observations = [];
    },
    close: server.close,
  };
}
