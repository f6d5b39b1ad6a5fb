import { type Outcome, send } from './requests.js';
import type { ServiceProcess } from './service-process.js';

interface Shot {
  method?: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Keeps `workers` requests in flight (each on a fresh connection) until the
 * service refuses connections or `maxMs` passes; `during` runs meanwhile.
 */
export async function loadWhile(
  service: ServiceProcess,
  options: { workers: number; maxMs: number; next: (i: number) => Shot },
  during: () => Promise<void>,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const deadline = Date.now() + options.maxMs;
  let refused = false;
  let sent = 0;
  const worker = async () => {
    while (!refused && Date.now() < deadline) {
      const shot = options.next(sent++);
      const outcome = await send(service.url + shot.path, shot);
      outcomes.push(outcome);
      if (outcome.kind === 'refused') refused = true;
    }
  };
  await Promise.all([...Array.from({ length: options.workers }, worker), during()]);
  return outcomes;
}

/** Request ids the service logged as completed. */
export function completedIds(entries: Record<string, unknown>[]): Set<string> {
  return new Set(
    entries
      .filter((entry) => entry.msg === 'request completed')
      .map((entry) => String(entry.reqId)),
  );
}
