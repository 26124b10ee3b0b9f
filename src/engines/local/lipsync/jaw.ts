/**
 * Geometry of the mouth from face-mesh lip contours: where the lips meet, how wide the mouth is, how far
 * the jaw may drop. Pure; coordinates are in the rendered frame's pixels.
 */
export type Pt = [number, number];

export interface MouthGeometry {
  left: number;
  right: number;
  centerX: number;
  /** Upper lip's inner edge, sorted by x. */
  upperInner: Pt[];
  /** Lower lip's inner edge, sorted by x. */
  lowerInner: Pt[];
  /** Lowest face-outline point (the chin). */
  chinY: number;
  /** Largest jaw drop in px, at full loudness. */
  maxOpen: number;
}

const byX = (pts: Pt[]) => [...pts].sort((a, b) => a[0] - b[0]);

/** Linear interpolation of a contour (sorted by x) at x, clamped to its ends. */
export function contourY(contour: Pt[], x: number): number {
  if (!contour.length) return 0;
  if (x <= contour[0]![0]) return contour[0]![1];
  for (let i = 1; i < contour.length; i++) {
    const [x1, y1] = contour[i]!;
    if (x <= x1) {
      const [x0, y0] = contour[i - 1]!;
      return x1 === x0 ? y1 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
    }
  }
  return contour.at(-1)![1];
}

export function mouthGeometry(lm: { lipsUpperOuter: Pt[]; lipsUpperInner: Pt[]; lipsLowerInner: Pt[]; silhouette: Pt[] }, scale: number): MouthGeometry {
  const s = (pts: Pt[]) => pts.map(([x, y]) => [x * scale, y * scale] as Pt);
  const outer = s(lm.lipsUpperOuter);
  const left = Math.min(...outer.map((p) => p[0]));
  const right = Math.max(...outer.map((p) => p[0]));
  const upperInner = byX(s(lm.lipsUpperInner));
  const lowerInner = byX(s(lm.lipsLowerInner));
  const lipY = (contourY(upperInner, (left + right) / 2) + contourY(lowerInner, (left + right) / 2)) / 2;
  const chinY = Math.max(...s(lm.silhouette).map((p) => p[1]));
  const width = right - left;
  // A speaking jaw drops about a third of the mouth's width, and never past half the lip-to-chin height.
  const maxOpen = Math.max(2, Math.min(width * 0.32, (chinY - lipY) * 0.5));
  return { left, right, centerX: (left + right) / 2, upperInner, lowerInner, chinY, maxOpen };
}

/** Horizontal weight of the drop: 1 at the mouth's centre, 0 at and beyond its corners (a parabola). */
export function columnWeight(g: MouthGeometry, x: number): number {
  const half = (g.right - g.left) / 2;
  const t = (x - g.centerX) / half;
  return Math.abs(t) >= 1 ? 0 : 1 - t * t;
}
