import { describe, expect, it } from 'vitest';
import { bearerToken } from '../src/bearer-token.js';

describe('bearerToken', () => {
  it('takes what follows `Bearer ` exactly, as sent, and nothing from another scheme', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('Bearer  abc ')).toBe(' abc ');
    expect(bearerToken('Bearer ')).toBe('');
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('bearer abc')).toBeUndefined();
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken(['Bearer abc'])).toBeUndefined();
  });
});
