import type { LoadResult } from './load.js';

export interface Measured extends LoadResult {
  /** Peak resident memory of the server under this load, MiB. */
  rss: number;
}

/** Runs the variants in turns (A B C A B C) so drift on a shared machine hits them alike. */
export async function inTurns(
  rounds: number,
  variants: (() => Promise<Measured>)[],
): Promise<Measured[]> {
  const sums = variants.map(() => ({
    rps: 0,
    p50: 0,
    p99: 0,
    rss: 0,
    requests: 0,
    errors: 0,
    non2xx: 0,
  }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, variant] of variants.entries()) {
      const result = await variant();
      const sum = sums[i]!;
      sum.rps += result.rps / rounds;
      sum.p50 += result.p50 / rounds;
      sum.p99 += result.p99 / rounds;
      sum.rss = Math.max(sum.rss, result.rss);
      sum.requests += result.requests;
    }
  }
  return sums;
}
