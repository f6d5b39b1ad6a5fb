import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceProcess } from './service-process.js';

/** NODE_OPTIONS that let `liveMemoryMb` ask a service for its live memory. */
export const HEAP_PROBE = `--expose-gc --require ${join(import.meta.dirname, 'heap-probe.cjs')}`;

/**
 * Heap and external memory a service (started with HEAP_PROBE) still holds
 * after a full garbage collection, in MiB.
 */
export async function liveMemoryMb(service: ServiceProcess): Promise<number> {
  const probes = () => service.output().match(/^heap-probe .*$/gm) ?? [];
  const before = probes().length;
  service.signal('SIGUSR2');
  const deadline = Date.now() + 5000;
  while (probes().length === before) {
    if (Date.now() > deadline) throw new Error('the service did not answer the heap probe');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const line = probes()[before] as string;
  const { heapUsed, external } = JSON.parse(line.slice('heap-probe '.length)) as {
    heapUsed: number;
    external: number;
  };
  return (heapUsed + external) / 1024 / 1024;
}

/** The least of a few probes a moment apart, so an answer still in flight does not raise a baseline. */
export async function settledLiveMemoryMb(service: ServiceProcess): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let probe = 0; probe < 3; probe++) {
    least = Math.min(least, await liveMemoryMb(service));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return least;
}

/** Resident set size of a process, in MiB. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Least-squares slope of the samples, in MiB per minute. */
export function slopePerMinute(samples: { atMs: number; mb: number }[]): number {
  const n = samples.length;
  const meanT = samples.reduce((sum, s) => sum + s.atMs, 0) / n;
  const meanM = samples.reduce((sum, s) => sum + s.mb, 0) / n;
  const num = samples.reduce((sum, s) => sum + (s.atMs - meanT) * (s.mb - meanM), 0);
  const den = samples.reduce((sum, s) => sum + (s.atMs - meanT) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 60_000;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
