import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where a started service answers: itself, its API reference, its metrics. */
export interface ServiceUrls {
  url: string;
  docs: string;
  /** `off` when METRICS_ENABLED=false. */
  metrics: string;
}

/** A listener on every address is reached, from this machine, at localhost. */
const EVERY_ADDRESS = new Set(['0.0.0.0', '::']);

function originOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  if (EVERY_ADDRESS.has(address)) return `http://localhost:${port}`;
  return address.includes(':') ? `http://[${address}]:${port}` : `http://${address}:${port}`;
}

/** The bound addresses, so a port of 0 shows the port the system chose. */
export function serviceUrls(server: Server, metricsServer?: Server, metricsOn = true): ServiceUrls {
  const url = originOf(server);
  const metrics = metricsOn ? `${originOf(metricsServer ?? server)}/metrics` : 'off';
  return { url, docs: `${url}/docs`, metrics };
}

/** The one line a service prints once it serves. */
export function listeningMessage(service: string, urls: ServiceUrls): string {
  return `${service} listening on ${urls.url} (docs ${urls.docs}, metrics ${urls.metrics})`;
}
