/**
 * The scene-analysis service's client. Wire shape as the original project's client sends it
 * (docs/decisions.md, "Perception services"): `POST {url}/analyze?run_detect=…&run_describe=…
 * &run_embed=…&run_hazards=…`, multipart with the image in the field `image`, the camera in
 * `X-Sensor-Id`; the answer is `{detections, description, embedding, hazards,
 * detector_available, describer_available, embedder_available}`. Items that do not have
 * their shape are dropped, as the original does; a body that is no object is a bad answer.
 */
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import type { SceneAnalysis, SceneAnalysisRequest, SceneDetection, SceneHazard } from "../../../../vocabulary/scenes";
import { bool, isObject, numbers, objects, str, type Json } from "./coerce";
import { imageMime } from "../llm/step/images";
import { callService, unreadable, type ServiceSettings } from "./service-call";

export const SCENE_ANALYSIS = "scene analysis";

/** A detection, or null when the item lacks its shape (dropped, as the original drops it). */
function detection(v: Json): SceneDetection | null {
  if (typeof v.label !== "string" || typeof v.confidence !== "number" || typeof v.class_id !== "number" || !Array.isArray(v.bbox)) return null;
  return { label: v.label, confidence: v.confidence, bbox: numbers(v.bbox), class_id: v.class_id };
}

function hazard(v: Json): SceneHazard | null {
  const d = isObject(v.detection) ? detection(v.detection) : null;
  if (!d || typeof v.name !== "string" || typeof v.severity !== "string" || typeof v.description !== "string") return null;
  return { name: v.name, severity: v.severity, description: v.description, detection: d };
}

const kept = <T>(v: unknown, read: (x: Json) => T | null): T[] => objects(v).flatMap((x) => read(x) ?? []);

function analysis(v: Json): SceneAnalysis {
  return {
    detections: kept(v.detections, detection),
    description: str(v.description),
    embedding: numbers(v.embedding),
    hazards: kept(v.hazards, hazard),
    detector_available: bool(v.detector_available),
    describer_available: bool(v.describer_available),
    embedder_available: bool(v.embedder_available),
  };
}

export async function analyzeScene(
  settings: ServiceSettings,
  image: Uint8Array,
  request: SceneAnalysisRequest,
  signal: AbortSignal,
): Promise<ServiceAnswer<SceneAnalysis>> {
  const form = new FormData();
  const mime = imageMime(Buffer.from(image.buffer, image.byteOffset, image.byteLength)) ?? "application/octet-stream";
  form.append("image", new Blob([image], { type: mime }), `image.${mime.split("/")[1] ?? "bin"}`);
  const raw = await callService(
    SCENE_ANALYSIS,
    settings,
    {
      method: "POST",
      path: "/analyze",
      query: { run_detect: request.run_detect, run_describe: request.run_describe, run_embed: request.run_embed, run_hazards: request.run_hazards },
      headers: request.sensor_id ? { "X-Sensor-Id": request.sensor_id } : {},
      body: form,
    },
    signal,
  );
  if (!raw.ok) return raw;
  if (!isObject(raw.value)) return unreadable(SCENE_ANALYSIS, "a scene analysis");
  return { ok: true, value: analysis(raw.value) };
}
