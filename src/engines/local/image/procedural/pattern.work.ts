import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { seededRng } from '../../random.js';
import { pickPalette } from './palettes.js';

export const PATTERN_STYLES = ['truchet', 'circles', 'waves', 'mosaic', 'flow', 'voronoi'] as const;
export type PatternStyle = (typeof PATTERN_STYLES)[number];

export interface PatternOptions {
  style: PatternStyle;
  palette: string;
  width: number;
  height: number;
  /** Relative size of the repeating element, 1 = default. */
  scale: number;
  seed: number;
}

type Draw = (g: SKRSContext2D, W: number, H: number, cols: string[], rand: () => number, unit: number) => void;

/** Quarter-circle Truchet tiles: each cell picks one of two orientations. */
const truchet: Draw = (g, W, H, cols, rand, unit) => {
  const s = unit;
  g.lineWidth = s * 0.22;
  g.lineCap = 'round';
  for (let y = 0; y < H; y += s) {
    for (let x = 0; x < W; x += s) {
      g.strokeStyle = cols[1 + Math.floor(rand() * (cols.length - 1))]!;
      const flip = rand() < 0.5;
      g.beginPath();
      if (flip) {
        g.arc(x, y, s / 2, 0, Math.PI / 2); g.moveTo(x + s, y + s / 2); g.arc(x + s, y + s, s / 2, -Math.PI / 2, -Math.PI, true);
      } else {
        g.arc(x + s, y, s / 2, Math.PI / 2, Math.PI); g.moveTo(x + s / 2, y + s); g.arc(x, y + s, s / 2, 0, -Math.PI / 2, true);
      }
      g.stroke();
    }
  }
};

/** Concentric rings on a jittered grid. */
const circles: Draw = (g, W, H, cols, rand, unit) => {
  for (let y = unit / 2; y < H + unit; y += unit) {
    for (let x = unit / 2; x < W + unit; x += unit) {
      const cx = x + (rand() - 0.5) * unit * 0.4;
      const cy = y + (rand() - 0.5) * unit * 0.4;
      const rings = 2 + Math.floor(rand() * 4);
      for (let r = rings; r > 0; r--) {
        g.fillStyle = cols[Math.floor(rand() * cols.length)]!;
        g.beginPath(); g.arc(cx, cy, (unit * 0.62 * r) / rings, 0, Math.PI * 2); g.fill();
      }
    }
  }
};

/** Stacked sine bands with seeded frequencies and phases; each lower band is painted over the one above. */
const waves: Draw = (g, W, H, cols, rand, unit) => {
  const bands = Math.ceil(H / (unit * 0.5)) + 2;
  for (let i = -1; i <= bands; i++) {
    const base = (i / bands) * H;
    const amp = unit * (0.2 + rand() * 0.5);
    const f1 = (Math.PI * 2 * (1 + rand() * 2)) / W;
    const f2 = (Math.PI * 2 * (2 + rand() * 4)) / W;
    const p1 = rand() * Math.PI * 2;
    g.fillStyle = cols[((i % cols.length) + cols.length) % cols.length]!;
    g.beginPath(); g.moveTo(0, H);
    for (let x = 0; x <= W; x += 4) g.lineTo(x, base + amp * Math.sin(f1 * x + p1) + amp * 0.4 * Math.sin(f2 * x));
    g.lineTo(W, H); g.closePath(); g.fill();
  }
};

/** Each grid square split along a random diagonal into two coloured triangles. */
const mosaic: Draw = (g, W, H, cols, rand, unit) => {
  for (let y = 0; y < H; y += unit) {
    for (let x = 0; x < W; x += unit) {
      const d = rand() < 0.5;
      const tri = (pts: number[][]) => {
        g.fillStyle = cols[Math.floor(rand() * cols.length)]!;
        g.beginPath(); g.moveTo(pts[0]![0]!, pts[0]![1]!); for (const [px, py] of pts.slice(1)) g.lineTo(px!, py!); g.closePath(); g.fill();
      };
      if (d) { tri([[x, y], [x + unit, y], [x, y + unit]]); tri([[x + unit, y], [x + unit, y + unit], [x, y + unit]]); }
      else { tri([[x, y], [x + unit, y], [x + unit, y + unit]]); tri([[x, y], [x + unit, y + unit], [x, y + unit]]); }
    }
  }
};

/** Smooth value noise on a lattice (bilinear with smoothstep), used to steer the flow field. */
function valueNoise(rand: () => number, cells: number) {
  const grid = Array.from({ length: (cells + 1) * (cells + 1) }, () => rand());
  const at = (i: number, j: number) => grid[Math.min(cells, j) * (cells + 1) + Math.min(cells, i)]!;
  return (u: number, v: number) => {
    const x = Math.max(0, Math.min(0.9999, u)) * cells;
    const y = Math.max(0, Math.min(0.9999, v)) * cells;
    const i = Math.floor(x); const j = Math.floor(y);
    const fx = x - i; const fy = y - j;
    const sx = fx * fx * (3 - 2 * fx); const sy = fy * fy * (3 - 2 * fy);
    const top = at(i, j) * (1 - sx) + at(i + 1, j) * sx;
    const bottom = at(i, j + 1) * (1 - sx) + at(i + 1, j + 1) * sx;
    return top * (1 - sy) + bottom * sy;
  };
}

/** Particles traced through a noise-driven angle field. */
const flow: Draw = (g, W, H, cols, rand, unit) => {
  const noise = valueNoise(rand, 5);
  const step = Math.max(1, unit / 12);
  g.lineWidth = Math.max(1, unit / 18);
  g.lineCap = 'round';
  const count = Math.round((W * H) / (unit * unit) * 3);
  for (let p = 0; p < count; p++) {
    let x = rand() * W; let y = rand() * H;
    g.strokeStyle = cols[1 + Math.floor(rand() * (cols.length - 1))]!;
    g.globalAlpha = 0.55 + rand() * 0.45;
    g.beginPath(); g.moveTo(x, y);
    for (let s = 0; s < 60; s++) {
      const a = noise(x / W, y / H) * Math.PI * 4;
      x += Math.cos(a) * step; y += Math.sin(a) * step;
      if (x < 0 || y < 0 || x > W || y > H) break;
      g.lineTo(x, y);
    }
    g.stroke();
  }
  g.globalAlpha = 1;
};

/** Voronoi cells of seeded points, filled per pixel, with darker borders where two sites are nearly tied. */
const voronoi: Draw = (g, W, H, cols, rand, unit) => {
  const n = Math.max(4, Math.round((W * H) / (unit * unit)));
  const sites = Array.from({ length: n }, () => ({ x: rand() * W, y: rand() * H, c: hexRgb(cols[Math.floor(rand() * cols.length)]!) }));
  const img = g.createImageData(W, H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let d1 = Infinity; let d2 = Infinity; let best = 0;
      for (let i = 0; i < n; i++) {
        const dx = x - sites[i]!.x; const dy = y - sites[i]!.y;
        const d = dx * dx + dy * dy;
        if (d < d1) { d2 = d1; d1 = d; best = i; } else if (d < d2) d2 = d;
      }
      const edge = Math.sqrt(d2) - Math.sqrt(d1) < Math.max(1.5, unit / 40) ? 0.55 : 1;
      const c = sites[best]!.c;
      const o = (y * W + x) * 4;
      img.data[o] = c[0] * edge; img.data[o + 1] = c[1] * edge; img.data[o + 2] = c[2] * edge; img.data[o + 3] = 255;
    }
  }
  g.putImageData(img, 0, 0);
};

function hexRgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const STYLES: Record<PatternStyle, Draw> = { truchet, circles, waves, mosaic, flow, voronoi };

/** Runs in a worker thread. Deterministic for a given seed, size and options. */
export async function renderPattern(o: PatternOptions): Promise<Uint8Array> {
  const rand = seededRng(o.seed);
  const cols = [...pickPalette(o.palette, rand)];
  const canvas = createCanvas(o.width, o.height);
  const g = canvas.getContext('2d');
  g.fillStyle = cols[0]!;
  g.fillRect(0, 0, o.width, o.height);
  const unit = Math.max(8, Math.round((Math.min(o.width, o.height) / 8) * o.scale));
  STYLES[o.style](g, o.width, o.height, cols, rand, unit);
  return canvas.encode('png');
}
