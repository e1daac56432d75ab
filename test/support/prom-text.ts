/**
 * A reader of the Prometheus text exposition format (0.0.4), strict enough to catch what a
 * scraper would refuse: every sample belongs to a family declared by a `# TYPE` line before it,
 * with a known type and only the suffixes that type allows; label values are quoted and
 * escaped; values are numbers. Tests read the samples back by name and labels.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with this name and (at least) these labels; undefined if none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of this name with (at least) these labels. */
  all(name: string, labels?: Record<string, string>): Sample[];
}

const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<string, readonly string[]> = {
  counter: [""],
  gauge: [""],
  untyped: [""],
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};
const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) throw new Error(`bad labels in: ${line}`);
    labels[m[1]] = m[2].replace(/\\(.)/g, (_all, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

/** As Prometheus reads them (Go's ParseFloat): NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string, line: string): number {
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  const v = Number(text);
  if (!Number.isFinite(v)) throw new Error(`bad value in: ${line}`);
  return v;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const m = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
      if (!m) throw new Error(`bad comment line: ${line}`);
      if (m[1] === "TYPE") {
        if (!TYPES.has(m[3])) throw new Error(`unknown type: ${line}`);
        if (types.has(m[2])) throw new Error(`second TYPE for ${m[2]}`);
        types.set(m[2], m[3]);
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const [, name, labelText, valueText] = m;
    const family = [...types.entries()].find(([f, type]) => SUFFIXES[type].some((s) => name === f + s));
    if (!family) throw new Error(`sample without a # TYPE before it: ${line}`);
    samples.push({ name, labels: labelText ? parseLabels(labelText, line) : {}, value: parseValue(valueText, line) });
  }
  const matches = (s: Sample, name: string, labels: Record<string, string>) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  const all = (name: string, labels: Record<string, string> = {}) => samples.filter((s) => matches(s, name, labels));
  return {
    types,
    samples,
    all,
    value: (name, labels = {}) => {
      const found = all(name, labels);
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
  };
}
