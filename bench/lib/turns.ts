import type { LoadResult } from './load.js';

export interface Measured extends LoadResult {
  /** Peak resident memory of the server under this load, MiB. */
  rss: number;
  /** CPU the server spent per request, µs (/proc), where measured. */
  cpuUs?: number;
  /** CPU the database server spent per request meanwhile, µs. */
  dbCpuUs?: number;
  /** CPU the message broker spent per request meanwhile, µs, where one is measured. */
  brokerCpuUs?: number;
}

/** A variant's measurements over the rounds: their means, and each round's throughput and CPU. */
export interface Turned extends Measured {
  roundRps: number[];
  roundCpuUs: number[];
  roundDbCpuUs: number[];
  roundBrokerCpuUs: number[];
}

/**
 * Runs the variants in turns, each round in the reverse order of the one
 * before (A B C, C B A, A B C), so drift on a shared machine and the place in
 * a round hit them alike.
 */
export async function inTurns(
  rounds: number,
  variants: (() => Promise<Measured>)[],
): Promise<Turned[]> {
  const sums: Turned[] = variants.map(() => ({
    rps: 0,
    p50: 0,
    p99: 0,
    rss: 0,
    requests: 0,
    errors: 0,
    non2xx: 0,
    roundRps: [],
    roundCpuUs: [],
    roundDbCpuUs: [],
    roundBrokerCpuUs: [],
  }));
  for (let round = 0; round < rounds; round++) {
    const order = [...variants.keys()];
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const result = await (variants[i] as () => Promise<Measured>)();
      const sum = sums[i] as Turned;
      sum.rps += result.rps / rounds;
      sum.p50 += result.p50 / rounds;
      sum.p99 += result.p99 / rounds;
      sum.rss = Math.max(sum.rss, result.rss);
      sum.requests += result.requests;
      sum.roundRps.push(result.rps);
      if (result.cpuUs !== undefined) sum.roundCpuUs.push(result.cpuUs);
      if (result.dbCpuUs !== undefined) sum.roundDbCpuUs.push(result.dbCpuUs);
      if (result.brokerCpuUs !== undefined) sum.roundBrokerCpuUs.push(result.brokerCpuUs);
    }
  }
  for (const sum of sums) {
    if (sum.roundCpuUs.length > 0) sum.cpuUs = median(sum.roundCpuUs);
    if (sum.roundDbCpuUs.length > 0) sum.dbCpuUs = median(sum.roundDbCpuUs);
    if (sum.roundBrokerCpuUs.length > 0) sum.brokerCpuUs = median(sum.roundBrokerCpuUs);
  }
  return sums;
}

/**
 * The median over rounds of `a`'s throughput over `b`'s. Each pair was measured
 * moments apart, so a round the machine slowed down for both cancels out, and
 * one disturbed measurement moves the median less than it moves a mean.
 */
export function pairedRatio(a: Turned, b: Turned): number {
  return median(a.roundRps.map((rps, round) => rps / (b.roundRps[round] as number)));
}

/** The median over rounds of `a`'s CPU per request over `b`'s (lower is cheaper). */
export function pairedCpuRatio(a: Turned, b: Turned): number {
  return median(a.roundCpuUs.map((cpu, round) => cpu / (b.roundCpuUs[round] as number)));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
