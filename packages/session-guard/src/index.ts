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
export { type LiveSession, SessionStore, type SessionStoreOptions } from './session-store.js';
export { createTestSession, type TestSessionOptions } from './testing.js';
export {
  isWellFormedToken,
  md5Hex,
  md5Token,
  randomToken,
  sha256Hex,
  type TokenScheme,
} from './token.js';
export {
  type AuthUser,
  createSessionValidator,
  type SessionOptions,
  SessionStoreError,
  type SessionValidator,
} from './validator.js';
