/**
 * What a face engine does: find the faces in images and describe each by a 128-number
 * descriptor (face-api's ResNet embedding; two faces of one person lie within about 0.6 of
 * each other in Euclidean distance). The built-in engine (`builtin-engine.ts`) runs it in a
 * worker thread; the remote backend does not use an engine at all (it identifies by itself).
 */

export interface DetectedFace {
  /** [x1, y1, x2, y2] in the image's pixels (after its EXIF orientation). */
  bbox: number[];
  /** The detector's score, 0–1. */
  score: number;
  descriptor: number[];
}

export interface ImageFaces {
  width: number;
  height: number;
  faces: DetectedFace[];
}

/** One image that could not be read (not an image, corrupt): the others are still answered. */
export interface ImageProblem {
  error: string;
}

export type ImageResult = ImageFaces | ImageProblem;

export const isProblem = (r: ImageResult): r is ImageProblem => "error" in r;

export interface FaceEngine {
  /** One result per image, in order. Rejects when the engine cannot run (its model failed to load). */
  detect(images: readonly Uint8Array[]): Promise<ImageResult[]>;
  /** Stops the engine (the worker thread); a later `detect` starts it again. */
  close(): Promise<void>;
}
