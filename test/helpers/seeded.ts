// Randomised tests draw from a seeded generator; the seed is in the test's
// name or message, and a failing run replays with SPLITGUARD_TEST_SEED=<seed>.
export const TEST_SEED = process.env.SPLITGUARD_TEST_SEED !== undefined
  ? Number(process.env.SPLITGUARD_TEST_SEED) >>> 0
  : (Date.now() ^ (process.pid << 16)) >>> 0;

/** xorshift32 with a non-zero state derived from the seed (`salt` keeps one test's sequence apart from another's). */
export function xorshift32(seed: number, salt = 0x5bd1e995): () => number {
  let s = (Math.imul(seed ^ salt, 0x9e3779b1) >>> 0) || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}
