/** Reproducible random chunkings of a text, as a streaming server would cut it. */

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts `text` into deltas of 1..maxSize characters. */
export function randomChunks(text: string, seed: number, maxSize: number): string[] {
  const random = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const size = 1 + Math.floor(random() * maxSize);
    out.push(text.slice(i, i + size));
    i += size;
  }
  return out;
}
