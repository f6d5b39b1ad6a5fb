import { sha256Hex, type TokenScheme } from './token.js';

/**
 * The Redis key layout of sessions, and nothing else knows it: the auth service
 * writes sessions through this package, and every guard reads them through it.
 *
 * session  random: `<prefix><sha256hex(token)>`; md5: `<prefix><token>`, the prefix
 *          empty unless configured, which is the old backend's layout. The value is
 *          the username; it expires when the session ends. Guards already deployed
 *          read exactly this, so it never changes.
 * metadata `{<session key>}:meta`, a hash: `id` (random, 22 characters of base64url,
 *          unrelated to the token), `createdAt`, `lastSeenAt` and `endsAt` (ms since
 *          the epoch; `endsAt` is the absolute end the login gave it, which no renewal
 *          passes), `ip`, and `userAgent` when the login sent one. It expires at the
 *          same moment as its session: every write that sets one lifetime sets both.
 *          md5 only, after a password change: the old password's token's metadata
 *          key holds just `retired` (the change's credentials value) for
 *          CREDENTIALS_HOLD_MS, so a login that checked the old password cannot
 *          write that token again; ending the token keeps the marker.
 * index    random only: `<prefix>user:<lowercased username>`, a set of the user's
 *          token hashes. Its lifetime is kept at least that of its longest-lived
 *          session, members of ended sessions are removed by whoever ends them, and
 *          those of expired ones by the next login or listing, so it never outlives
 *          the user's last session. md5 has no index: one password gives one token.
 * credentials `<prefix>credentials:<lowercased username>`, both schemes: a random
 *          value that a password change replaces, for CREDENTIALS_HOLD_MS. A login
 *          reads it before it reads the password hash and again after it has
 *          written and indexed its session: a different value means the password
 *          changed in between, and the login ends its own session and fails.
 *
 * Redis Cluster. The braces of the metadata key are a hash tag naming the whole
 * session key, so a session and its metadata always share one slot and one script
 * reads and writes both (the session key itself carries no tag: it is shared with
 * the old backend and with guards already deployed, so a key prefix must not
 * contain braces). The index lives in its user's own slot: no script touches it
 * together with a session, and writes that span both are single-slot steps in an
 * order that keeps the index a superset of the user's live sessions. The credentials
 * key needs no shared slot either: a login indexes its session before it reads the
 * key again, and a password change replaces the key before it reads the index, so
 * one of the two always sees the other (session-store.ts).
 *
 * None of these shapes can be a key of the judging queue (`bull:*`).
 */
const DEFAULT_RANDOM_PREFIX = 'session:';
const USER_INDEX_INFIX = 'user:';
const CREDENTIALS_INFIX = 'credentials:';

/**
 * How long a password change's credentials value lives, and so the longest a login
 * may take from its first read of it to its second: a slower login fails.
 */
export const CREDENTIALS_HOLD_MS = 60_000;

/** The longest a session lives after its login, however it is used (SESSION_MAX_AGE). */
const DEFAULT_MAX_AGE_SECONDS = 604_800;
/**
 * Ten years: the largest max age taken. Every lifetime a script computes is then
 * below 10^14 ms, which Lua still hands to Redis as an integer (not as `1e+14`).
 */
export const LONGEST_MAX_AGE_SECONDS = 315_360_000;
/** The max age in milliseconds; a TypeError for anything but 1 to LONGEST_MAX_AGE_SECONDS. */
export function maxAgeMs(maxAgeSeconds = DEFAULT_MAX_AGE_SECONDS): number {
  if (!(Number.isInteger(maxAgeSeconds) && maxAgeSeconds > 0)) {
    throw new TypeError('session-guard: maxAgeSeconds must be a positive integer');
  }
  if (maxAgeSeconds > LONGEST_MAX_AGE_SECONDS) {
    throw new TypeError(`session-guard: maxAgeSeconds must be at most ${LONGEST_MAX_AGE_SECONDS}`);
  }
  return maxAgeSeconds * 1000;
}

/** SESSION_MAX_PER_USER: a TypeError for anything but a positive integer. Default 100. */
export function perUserCap(maxPerUser = 100): number {
  if (!(Number.isInteger(maxPerUser) && maxPerUser > 0)) {
    throw new TypeError('session-guard: maxPerUser must be a positive integer');
  }
  return maxPerUser;
}

/** lastSeenAt is written at most once per session in this time (SESSION_TOUCH_SECONDS). */
export const DEFAULT_TOUCH_SECONDS = 60;
/** The login's User-Agent is kept up to this many characters. */
export const USER_AGENT_MAX_LENGTH = 256;

/** A session's two keys, in the order every session script takes them. */
type SessionKeyPair = [session: string, metadata: string];

export class SessionKeys {
  readonly prefix: string;

  constructor(
    readonly scheme: TokenScheme,
    keyPrefix?: string,
  ) {
    this.prefix = keyPrefix ?? (scheme === 'md5' ? '' : DEFAULT_RANDOM_PREFIX);
    if (/[{}]/.test(this.prefix)) {
      throw new TypeError('session-guard: keyPrefix must not contain { or } (Cluster hash tags)');
    }
  }

  /** What names a session in Redis: in random the SHA-256 of the token, never the token. */
  tokenId(token: string): string {
    return this.scheme === 'md5' ? token : sha256Hex(token);
  }

  ofTokenId(tokenId: string): SessionKeyPair {
    const session = this.prefix + tokenId;
    return [session, `{${session}}:meta`];
  }

  ofToken(token: string): SessionKeyPair {
    return this.ofTokenId(this.tokenId(token));
  }

  /** The user's index (random only). */
  index(username: string): string {
    return `${this.prefix}${USER_INDEX_INFIX}${username.toLowerCase()}`;
  }

  /** The value a password change replaces (both schemes). */
  credentials(username: string): string {
    return `${this.prefix}${CREDENTIALS_INFIX}${username.toLowerCase()}`;
  }
}
