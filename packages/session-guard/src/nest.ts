import {
  type CanActivate,
  type DynamicModule,
  type ExecutionContext,
  Inject,
  Injectable,
  Module,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { INVALID_TOKEN_MESSAGE, NO_TOKEN_MESSAGE, STORE_UNAVAILABLE_MESSAGE } from './messages.js';
import { readToken } from './read-token.js';
import type { OriginRequest } from './session-origin.js';
import { SessionStoreError } from './store-error.js';
import {
  type AuthUser,
  createSessionValidator,
  type SessionOptions,
  type SessionValidator,
} from './validator.js';

/** The injection token of the validator SessionGuardModule.forRoot provides. */
export const SESSION_VALIDATOR = Symbol('SESSION_VALIDATOR');

interface GuardedRequest extends OriginRequest {
  token?: string;
  user?: AuthUser;
}

/**
 * `@UseGuards(SessionGuard)` on a controller or on one method. Refusals are
 * Nest's own exceptions, so the application's exception filter renders them:
 * UnauthorizedException with the spec's two messages, and
 * ServiceUnavailableException when Redis fails. On success the handler finds
 * `request.token` and `request.user`.
 */
export class SessionGuard implements CanActivate {
  constructor(private readonly validator: SessionValidator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    const token = readToken(request.headers);
    if (token === undefined) throw new UnauthorizedException(NO_TOKEN_MESSAGE);
    let user: AuthUser | null;
    try {
      user = await this.validator.validate(token, request);
    } catch (err) {
      if (err instanceof SessionStoreError) {
        throw new ServiceUnavailableException(STORE_UNAVAILABLE_MESSAGE, { cause: err });
      }
      throw err;
    }
    if (user === null) throw new UnauthorizedException(INVALID_TOKEN_MESSAGE);
    request.token = token;
    request.user = user;
    return true;
  }
}
// Decorators applied as calls, so neither this package nor its users need
// experimentalDecorators or emitDecoratorMetadata to compile it.
Injectable()(SessionGuard);
Inject(SESSION_VALIDATOR)(SessionGuard, undefined, 0);

/** `SessionGuardModule.forRoot(options)` once, in the root module: the guard is then usable everywhere. */
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest module is a class, configured through its static forRoot.
export class SessionGuardModule {
  static forRoot(options: SessionOptions): DynamicModule {
    return {
      module: SessionGuardModule,
      global: true,
      providers: [
        { provide: SESSION_VALIDATOR, useValue: createSessionValidator(options) },
        SessionGuard,
      ],
      exports: [SESSION_VALIDATOR, SessionGuard],
    };
  }
}
Module({})(SessionGuardModule);
