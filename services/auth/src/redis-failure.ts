import { OutcomeUnknownError, StoreUnavailableError } from '@svc/common';
import { fromStore, SessionOutcomeUnknownError } from '@svc/session-guard';

/**
 * A Redis command's result; its failure is a StoreUnavailableError (nothing
 * written), or an OutcomeUnknownError for a write of the guard package that
 * may have been carried out, so an outage never reads as a missing key or a
 * logged-out user. The guard package's own wrapper, with this service's
 * domain errors.
 */
export const fromRedis = <T>(command: Promise<T>): Promise<T> =>
  fromStore(command, (err) =>
    err instanceof SessionOutcomeUnknownError
      ? new OutcomeUnknownError('redis', err)
      : new StoreUnavailableError('redis', err),
  );
