import { readFile } from 'node:fs/promises';

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
