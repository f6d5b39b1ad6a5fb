import { ConfigError } from '@svc/common';
import { describe, expect, it } from 'vitest';
import { authSettingsFrom, defaultSettings, loadAuthConfig } from '../src/config.js';

describe('auth configuration', () => {
  it('defaults to the contract: random tokens for an hour, 5 failures in 15 minutes, no proxy', () => {
    expect(defaultSettings).toEqual({
      tokenScheme: 'random',
      tokenTtl: 3600,
      sliding: false,
      touchSeconds: 60,
      maxAgeSeconds: 604_800,
      maxPerUser: 100,
      keyPrefix: undefined,
      passwordRehash: true,
      loginMaxFailures: 5,
      accountMaxFailures: 20,
      loginWindowSeconds: 900,
      loginLockSeconds: 900,
      twoFactorChallengeSeconds: 300,
      trustProxy: false,
      queryTimeoutMs: 5000,
    });
  });

  it('reads every variable', () => {
    const settings = authSettingsFrom(
      loadAuthConfig({
        TOKEN_TTL: '120',
        TOKEN_SCHEME: 'md5',
        TOKEN_SLIDING: 'true',
        SESSION_TOUCH_SECONDS: '30',
        SESSION_MAX_AGE: '86400',
        SESSION_MAX_PER_USER: '5',
        SESSION_KEY_PREFIX: 'judge:',
        PASSWORD_REHASH: 'false',
        LOGIN_MAX_FAILURES: '3',
        ACCOUNT_MAX_FAILURES: '12',
        LOGIN_WINDOW_SECONDS: '60',
        LOGIN_LOCK_SECONDS: '300',
        TWO_FACTOR_CHALLENGE_SECONDS: '120',
        TRUST_PROXY: '1',
        MYSQL_QUERY_TIMEOUT_MS: '750',
      }),
    );
    expect(settings).toEqual({
      tokenScheme: 'md5',
      tokenTtl: 120,
      sliding: true,
      touchSeconds: 30,
      maxAgeSeconds: 86_400,
      maxPerUser: 5,
      keyPrefix: 'judge:',
      passwordRehash: false,
      loginMaxFailures: 3,
      accountMaxFailures: 12,
      loginWindowSeconds: 60,
      loginLockSeconds: 300,
      twoFactorChallengeSeconds: 120,
      trustProxy: 1,
      queryTimeoutMs: 750,
    });
  });

  it.each([
    ['true', true],
    ['false', false],
    ['2', 2],
    ['loopback', ['loopback']],
    [
      '10.0.0.1, 10.0.0.0/8 ,fd00::/8,192.168.0.0/255.255.0.0',
      ['10.0.0.1', '10.0.0.0/8', 'fd00::/8', '192.168.0.0/255.255.0.0'],
    ],
  ])('TRUST_PROXY=%s', (value, expected) => {
    expect(loadAuthConfig({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each([
    ['TOKEN_TTL', '0'],
    ['TOKEN_TTL', '-60'],
    ['TOKEN_TTL', '1.5'],
    ['TOKEN_TTL', 'an hour'],
    ['TOKEN_SCHEME', 'sha1'],
    ['TOKEN_SLIDING', 'sometimes'],
    ['SESSION_KEY_PREFIX', 'bull:judge:'],
    ['SESSION_KEY_PREFIX', '{judge}:session:'],
    ['SESSION_TOUCH_SECONDS', '0'],
    ['SESSION_MAX_AGE', '0'],
    ['SESSION_MAX_AGE', '315360001'],
    ['SESSION_MAX_AGE', 'a week'],
    ['SESSION_MAX_PER_USER', '0'],
    ['SESSION_MAX_PER_USER', 'ten'],
    ['LOGIN_MAX_FAILURES', '0'],
    ['ACCOUNT_MAX_FAILURES', '0'],
    ['LOGIN_LOCK_SECONDS', '-1'],
    ['TRUST_PROXY', 'everyone'],
    ['TRUST_PROXY', '10.0.0.0/99'],
    ['TRUST_PROXY', '10.0.0.1,'],
  ])('stops on %s=%s, naming the variable', (name, value) => {
    expect(() => loadAuthConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadAuthConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid configuration:\\n  ${name}: `),
    );
  });
});
