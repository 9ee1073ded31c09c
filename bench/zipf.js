'use strict';
/**
 * Zipf-distributed ranks for the million-link profile: rank r (0 = the most visited) is drawn
 * with probability proportional to 1 / (r + 1)^s. Seeded, so every run of the bench builds
 * the same visits.
 */

/** mulberry32: a small seeded PRNG, uniform in [0, 1). Not for anything secret. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A sampler of ranks in [0, n) with exponent s: the cumulative weights are computed once
 * (8 bytes per rank), each draw is a binary search.
 * @returns {() => number}
 */
function zipfSampler(n, s, seed) {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank++) {
    total += 1 / Math.pow(rank + 1, s);
    cumulative[rank] = total;
  }
  const random = seededRandom(seed);
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

module.exports = { zipfSampler };
