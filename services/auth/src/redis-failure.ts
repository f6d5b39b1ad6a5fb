import { StoreUnavailableError } from '@svc/common';
import { fromStore } from '@svc/session-guard';

/**
 * A Redis command's result; its failure is a StoreUnavailableError, so an
 * outage never reads as a missing key or a logged-out user. The guard
 * package's own wrapper, with this service's domain error.
 */
export const fromRedis = <T>(command: Promise<T>): Promise<T> =>
  fromStore(command, (err) => new StoreUnavailableError('redis', err));
