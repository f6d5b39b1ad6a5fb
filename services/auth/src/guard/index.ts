export type { TokenScheme } from '../sessions/token.js';
export {
  createGuard,
  INVALID_TOKEN_MESSAGE,
  NO_TOKEN_MESSAGE,
  STORE_UNAVAILABLE_MESSAGE,
} from './create-guard.js';
export { readToken } from './read-token.js';
export type { AuthUser, GuardOptions } from './types.js';
