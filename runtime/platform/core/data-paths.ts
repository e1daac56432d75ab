/**
 * Dotted-path resolution into pipeline_data, shared by conditions and templates so
 * `{{person_detections.0.name}}` and `person_detections.0.name == 'Ann'` read the same value.
 */

/** One pre-digested path segment, so evaluation does no string parsing. */
export interface PathSegment {
  readonly key: string;
  /** The segment as a list index, or -1 when it is not all digits. */
  readonly index: number;
  /** `count`, `length` and `len` ask for the size of a list, string or object. */
  readonly isLength: boolean;
}

const LENGTH_SEGMENTS: ReadonlySet<string> = new Set(["count", "length", "len"]);

export function parsePathSegments(path: string): PathSegment[] {
  return path.split(".").map((key) => ({
    key,
    index: /^\d+$/.test(key) ? Number(key) : -1,
    isLength: LENGTH_SEGMENTS.has(key),
  }));
}

/**
 * A JSON-style object. Class instances (Date, Buffer, Map) that a step may leave in
 * pipeline_data before it is stored are values, not dictionaries to walk into.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The own property `key` of `v`, or undefined. Own properties only: a rule must never reach
 * `constructor` or `__proto__` through a path.
 */
export function ownProperty(v: unknown, key: string): unknown {
  return isPlainObject(v) && hasOwn.call(v, key) ? v[key] : undefined;
}

/** One step of a path. Missing anything gives undefined, which callers treat as null. */
export function stepInto(v: unknown, seg: PathSegment): unknown {
  if (Array.isArray(v)) {
    if (seg.index >= 0) return seg.index < v.length ? v[seg.index] : undefined;
    return seg.isLength ? v.length : undefined;
  }
  if (isPlainObject(v)) {
    // A real key wins over the size alias: `{count: 3}.count` is 3.
    if (hasOwn.call(v, seg.key)) return v[seg.key];
    return seg.isLength ? Object.keys(v).length : undefined;
  }
  if (typeof v === "string" && seg.isLength) return v.length;
  return undefined;
}

/** Follows `segments` from `start`; null when any step is missing. */
export function resolveSegments(start: unknown, segments: readonly PathSegment[], from = 0): unknown {
  let v = start;
  for (let i = from; i < segments.length && v !== undefined; i++) v = stepInto(v, segments[i]);
  return v === undefined ? null : v;
}

/** Resolves a dotted path such as `person_detections.0.name` in `data`; null when missing. */
export function resolvePath(data: unknown, path: string): unknown {
  const segments = parsePathSegments(path);
  // The root is a plain key lookup: `count` alone must not mean "how many keys pipeline_data has".
  return resolveSegments(ownProperty(data, segments[0].key), segments, 1);
}
