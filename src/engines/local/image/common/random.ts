/**
 * A small seeded PRNG (mulberry32): procedural engines must give the same picture for the same seed on
 * every machine, which Math.random cannot.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for runs that gave none; reported back so the run can be repeated. */
export function freshSeed(): number {
  return Math.floor(Math.random() * 2_147_483_647);
}
