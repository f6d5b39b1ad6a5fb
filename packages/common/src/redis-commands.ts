import { StoreUnavailableError } from './errors.js';

/**
 * A Redis command's result; its failure (the connection down, a timeout, a
 * refusal) is a StoreUnavailableError, so an outage never reads as a missing
 * key or a logged-out user.
 */
export async function fromRedis<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (err) {
    throw new StoreUnavailableError('redis', err);
  }
}
