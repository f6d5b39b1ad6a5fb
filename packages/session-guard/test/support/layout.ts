import { createHash } from 'node:crypto';
import type { TokenScheme } from '../../src/index.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every token scheme, each with a layout of its own. */
export const SCHEMES: TokenScheme[] = ['random', 'md5'];

/**
 * The key layout as the README documents it, written out here rather than taken
 * from session-keys.ts, so a change to the layout fails these tests.
 */
export function layoutOf(scheme: TokenScheme, keyPrefix?: string) {
  const prefix = keyPrefix ?? (scheme === 'md5' ? '' : 'session:');
  const session = (token: string) => prefix + (scheme === 'md5' ? token : sha256(token));
  return {
    session,
    metadata: (token: string) => `{${session(token)}}:meta`,
    index: (username: string) => `${prefix}user:${username.toLowerCase()}`,
    /** What the index holds of a token. */
    member: (token: string) => sha256(token),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
