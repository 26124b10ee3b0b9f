/**
 * The one seeded pseudo-random generator of the local engines (mulberry32: a 32-bit multiply–xorshift mix
 * of a Weyl sequence). Seeded engines must give the same bytes for the same seed on every machine, which
 * Math.random cannot.
 */
export type Rng = () => number;

/**
 * How a seed becomes the generator's first state. The image engines take the seed as it is; the audio
 * engines mix it with the golden ratio first (0x9e3779b9). Both are kept so that every engine's output for a
 * given seed stays what it was.
 */
export type Seeding = 'as-given' | 'golden-mixed';

export function seededRng(seed: number, seeding: Seeding = 'as-given'): Rng {
  let state = seeding === 'golden-mixed' ? ((seed >>> 0) ^ 0x9e3779b9) >>> 0 : seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for runs that did not give one, reported back so the result can be reproduced. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2_147_483_647);
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

/** Picks an item with probability proportional to its weight. */
export function weighted<T>(rng: Rng, items: ReadonlyArray<readonly [T, number]>): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = rng() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items[items.length - 1]![0];
}
