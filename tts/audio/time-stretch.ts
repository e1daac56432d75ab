/**
 * WSOLA time-scale modification: changes tempo without changing pitch. Used only where an
 * engine's own rate control cannot reach the requested speed (eSpeak NG stops at about 0.46x and
 * 2.6x), so the spec's 0.25-4 range still holds. Each output frame is the input frame near its
 * nominal position that best continues the previous one, overlap-added under a Hann window.
 */
export function timeStretch(samples: Float32Array, tempo: number, sampleRate: number): Float32Array {
  if (tempo === 1 || samples.length === 0) return samples;
  const frame = evenLength(Math.round(sampleRate * 0.03));
  const hop = frame / 2;
  const tolerance = Math.round(sampleRate * 0.008);
  const window = hann(frame);
  const outLength = Math.round(samples.length / tempo);
  const out = new Float32Array(outLength + frame);
  const weight = new Float32Array(outLength + frame);

  let previous = 0;
  for (let outPos = 0; outPos < outLength; outPos += hop) {
    const nominal = Math.round(outPos * tempo);
    const natural = previous + hop;
    const chosen = outPos === 0 ? 0 : bestMatch(samples, natural, nominal, tolerance, hop);
    for (let i = 0; i < frame; i++) {
      const src = chosen + i;
      const value = src < samples.length ? samples[src] : 0;
      out[outPos + i] += value * window[i];
      weight[outPos + i] += window[i];
    }
    previous = chosen;
  }
  const result = new Float32Array(outLength);
  for (let i = 0; i < outLength; i++) result[i] = weight[i] > 1e-3 ? out[i] / weight[i] : out[i];
  return result;
}

/**
 * The candidate start within `tolerance` of `nominal` whose first half-frame correlates best with
 * the natural continuation. Every second sample and offset is examined, which halves the cost
 * four-fold with no audible difference for speech.
 */
function bestMatch(x: Float32Array, natural: number, nominal: number, tolerance: number, length: number): number {
  let best = Math.max(0, nominal);
  let bestScore = -Infinity;
  for (let delta = -tolerance; delta <= tolerance; delta += 2) {
    const start = nominal + delta;
    if (start < 0 || start >= x.length) continue;
    let score = 0;
    for (let i = 0; i < length; i += 2) {
      const a = natural + i < x.length ? x[natural + i] : 0;
      const b = start + i < x.length ? x[start + i] : 0;
      score += a * b;
    }
    if (score > bestScore) {
      bestScore = score;
      best = start;
    }
  }
  return best;
}

function hann(length: number): Float32Array {
  const w = new Float32Array(length);
  for (let i = 0; i < length; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / length);
  return w;
}

function evenLength(n: number): number {
  return n % 2 === 0 ? n : n + 1;
}
