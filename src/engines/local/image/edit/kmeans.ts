import { seededRng } from '../../random.js';

export interface Cluster { r: number; g: number; b: number; count: number }

/**
 * k-means over RGB triples (a flat array), seeded k-means++ start so the palette is the same on every
 * run. Pure and synchronous: callers run it in a worker thread.
 */
export function kmeans(px: Float32Array, k: number, iterations = 24): Cluster[] {
  const n = px.length / 3;
  if (n === 0) return [];
  k = Math.min(k, n);
  const rand = seededRng(0x5eed);
  const centers = new Float32Array(k * 3);
  const d2 = new Float32Array(n).fill(Infinity);
  let pick = Math.floor(rand() * n);
  for (let c = 0; c < k; c++) {
    centers.set(px.subarray(pick * 3, pick * 3 + 3), c * 3);
    // k-means++: the next centre is drawn with probability proportional to squared distance.
    let total = 0;
    for (let i = 0; i < n; i++) {
      const dr = px[i * 3]! - centers[c * 3]!;
      const dg = px[i * 3 + 1]! - centers[c * 3 + 1]!;
      const db = px[i * 3 + 2]! - centers[c * 3 + 2]!;
      d2[i] = Math.min(d2[i]!, dr * dr + dg * dg + db * db);
      total += d2[i]!;
    }
    if (total === 0) { k = c + 1; break; }
    let target = rand() * total;
    pick = n - 1;
    for (let i = 0; i < n; i++) {
      target -= d2[i]!;
      if (target <= 0) { pick = i; break; }
    }
  }
  const assign = new Int32Array(n);
  const sums = new Float64Array(k * 3);
  const counts = new Int32Array(k);
  for (let it = 0; it < iterations; it++) {
    sums.fill(0);
    counts.fill(0);
    let moved = 0;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < k; c++) {
        const dr = px[i * 3]! - centers[c * 3]!;
        const dg = px[i * 3 + 1]! - centers[c * 3 + 1]!;
        const db = px[i * 3 + 2]! - centers[c * 3 + 2]!;
        const d = dr * dr + dg * dg + db * db;
        if (d < bestD) { bestD = d; best = c; }
      }
      if (assign[i] !== best) moved++;
      assign[i] = best;
      counts[best]!++;
      sums[best * 3]! += px[i * 3]!;
      sums[best * 3 + 1]! += px[i * 3 + 1]!;
      sums[best * 3 + 2]! += px[i * 3 + 2]!;
    }
    for (let c = 0; c < k; c++) {
      if (counts[c]! > 0) for (let j = 0; j < 3; j++) centers[c * 3 + j] = sums[c * 3 + j]! / counts[c]!;
    }
    if (it > 0 && moved === 0) break;
  }
  const out: Cluster[] = [];
  for (let c = 0; c < k; c++) {
    if (counts[c]! > 0) out.push({ r: centers[c * 3]!, g: centers[c * 3 + 1]!, b: centers[c * 3 + 2]!, count: counts[c]! });
  }
  return out.sort((a, b) => b.count - a.count);
}
