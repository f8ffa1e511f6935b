/**
 * The seeded resampling generator of the bootstrap: two xoshiro128** streams whose state comes from
 * seedrandom's Alea generator on the seed string, so the same seed gives the same resamples, bit for bit.
 */
import seedrandom from 'seedrandom';

/** 2^-32: a uint32 times this is a uniform double in [0, 1) */
export const UINT32_UNIT = 2 ** -32;

/**
 * The state of the two resampling streams for a seed: eight 32-bit words, the first eight
 * `int32()` outputs of seedrandom's Alea generator seeded with `seed` (seedrandom 3.0.5), words 0-3
 * for the even stream and 4-7 for the odd one. Each stream is xoshiro128** 1.1 (Blackman and Vigna,
 * https://prng.di.unimi.it/xoshiro128starstar.c); its one forbidden state, all zero (chance 2^-128),
 * becomes [1, 0, 0, 0]. seedrandom stays the project's seeding: the recorded seed string determines
 * the state; xoshiro128** only makes the draws cheap enough to inline (four words of integer state in
 * local variables, no call, no allocation per resample).
 */
export function resamplingState(seed: string): Int32Array {
  const alea = seedrandom.alea(seed);
  const state = new Int32Array(8);
  for (let i = 0; i < 8; i++) state[i] = alea.int32();
  for (const o of [0, 4]) {
    if (
      ((state[o] as number) |
        (state[o + 1] as number) |
        (state[o + 2] as number) |
        (state[o + 3] as number)) ===
      0
    ) {
      state[o] = 1;
    }
  }
  return state;
}

/** xoshiro128**: the next uint32 of the stream whose four words start at `state[o]`, stepping it. */
export function xoshiro128ss(state: Int32Array, o: number): number {
  let s0 = state[o] as number;
  let s1 = state[o + 1] as number;
  let s2 = state[o + 2] as number;
  let s3 = state[o + 3] as number;
  const x = Math.imul(s1, 5);
  const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
  const t = s1 << 9;
  s2 ^= s0;
  s3 ^= s1;
  s1 ^= s2;
  s0 ^= s3;
  s2 ^= t;
  s3 = (s3 << 11) | (s3 >>> 21);
  state[o] = s0;
  state[o + 1] = s1;
  state[o + 2] = s2;
  state[o + 3] = s3;
  return result;
}

/**
 * A uniform double in [0, 1) with 53 random bits, from two draws of the stream whose four words start
 * at `state[o]` (27 and 26 bits of them, as Mersenne Twister's genrand_res53).
 */
export function uniform53(state: Int32Array, o: number): number {
  const high = xoshiro128ss(state, o) >>> 5;
  const low = xoshiro128ss(state, o) >>> 6;
  return (high * 67_108_864 + low) * 2 ** -53;
}

/**
 * The two resampling streams for a seed (state from `resamplingState`): the first draws the items at
 * even positions of every resample (0, 2, 4, ...), the second those at odd positions; each gives
 * uniform doubles u = r / 2^32 in [0, 1) from its xoshiro128** outputs r, and an item index is
 * floor(u * n) (= floor(r n / 2^32), exactly so for n < 2^21). Two independent streams let the CPU
 * step both generators at once. The bootstrap functions inline the same generator in their loops;
 * this function is their reference (the general path for a custom statistic uses it).
 */
export function resamplingStreams(seed: string): [even: () => number, odd: () => number] {
  const state = resamplingState(seed);
  return [() => xoshiro128ss(state, 0) * UINT32_UNIT, () => xoshiro128ss(state, 4) * UINT32_UNIT];
}
