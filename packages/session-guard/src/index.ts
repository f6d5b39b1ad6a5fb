export type { CredentialStamp } from './credentials.js';
export {
  createGuard,
  type GuardOptions,
  type GuardOutcome,
  type GuardRequest,
  type GuardResponse,
  type RejectReason,
  rejection,
} from './express.js';
export { INVALID_TOKEN_MESSAGE, NO_TOKEN_MESSAGE, STORE_UNAVAILABLE_MESSAGE } from './messages.js';
export { readToken } from './read-token.js';
export { LONGEST_MAX_AGE_SECONDS } from './session-keys.js';
export type { OpenedSession } from './session-login.js';
export type { OriginRequest } from './session-origin.js';
export { type LiveSession, SessionStore, type SessionStoreOptions } from './session-store.js';
export { fromStore, SessionOutcomeUnknownError, SessionStoreError } from './store-error.js';
export { createTestSession, type TestSessionOptions } from './testing.js';
export {
  isWellFormedToken,
  md5Hex,
  md5Token,
  randomToken,
  sha256Hex,
  type TokenScheme,
} from './token.js';
export { createUserSessions, type SessionInfo, type UserSessions } from './user-sessions.js';
export {
  type AuthUser,
  createSessionValidator,
  type SessionOptions,
  type SessionValidator,
} from './validator.js';
