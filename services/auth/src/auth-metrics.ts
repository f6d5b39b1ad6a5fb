import type { RedisClient } from '@svc/common';
import type { GuardOutcome } from '@svc/session-guard';
import { Counter, Gauge, type Registry } from 'prom-client';

export type LoginOutcome = 'success' | 'failure' | 'locked';

/** What the auth routes tell the metrics; absent, they tell nothing. */
interface AuthObservers {
  login(outcome: LoginOutcome): void;
  passwordCheck(): void;
  guard(outcome: GuardOutcome): void;
}

/** Logins and guard answers by outcome, and whether Redis is up, in the app's registry. */
export function authMetrics(registry: Registry, redis: RedisClient): AuthObservers {
  const logins = new Counter({
    name: 'auth_logins_total',
    help: 'Logins by outcome: success, failure (wrong credentials), locked (429 from the limiter)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const passwordChecks = new Counter({
    name: 'auth_password_checks_total',
    help: 'Password checks the login limiter admitted (logins and change-password), each a hash computed',
    registers: [registry],
  });
  const guard = new Counter({
    name: 'auth_guard_answers_total',
    help: 'Guarded requests by outcome: allowed, missing (no token), invalid (no live session), unavailable (Redis failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'redis_up',
    help: '1 while the connection to Redis is ready, else 0',
    registers: [registry],
    collect() {
      this.set(redis.status === 'ready' ? 1 : 0);
    },
  });
  return {
    login: (outcome) => logins.inc({ outcome }),
    passwordCheck: () => passwordChecks.inc(),
    guard: (outcome) => guard.inc({ outcome }),
  };
}
