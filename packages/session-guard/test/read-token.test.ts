import { describe, expect, it } from 'vitest';
import { readToken } from '../src/index.js';

describe('readToken', () => {
  it.each([
    [{ authorization: 'Bearer abc' }, 'abc'],
    [{ authorization: 'Bearer \t abc \t' }, 'abc'],
    [{ authorization: 'Bearer ' }, undefined],
    [{ authorization: 'Bearer ', token: 'abc' }, undefined],
    [{ authorization: 'Bearer', token: ' abc ' }, 'abc'],
    [{ authorization: 'bearer abc', token: 'def' }, 'def'],
    [{ authorization: 'Basic dXNlcg==', token: 'def' }, 'def'],
    [{ authorization: 'Bearer abc', token: 'def' }, 'abc'],
    [{ token: '\u00a0abc\u00a0' }, 'abc'],
    [{ token: '   ' }, undefined],
    [{ token: ['abc', 'def'] as unknown as string }, undefined],
    [{}, undefined],
  ])('%j → %s', (headers, expected) => {
    expect(readToken(headers)).toBe(expected);
  });
});
