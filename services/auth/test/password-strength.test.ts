import { describe, expect, it } from 'vitest';
import { passwordRefusal } from '../src/users/password-strength.js';
import {
  PASSWORD_HAS_USERNAME,
  PASSWORD_TOO_COMMON,
  PASSWORD_TOO_GUESSABLE,
} from '../src/users/user.messages.js';

/** Strong on its own: 8 characters with no word, walk or sequence in them. */
const STRONG = 'Kq7#vM2p';

describe('passwordRefusal', () => {
  it.each([
    'password',
    '123456789',
    'qwerty123',
    'iloveyou',
    'Password1',
    // l33t and reversed spellings are the same word of the list.
    'p@ssw0rd',
    'drowssap',
  ])('refuses %s as one of the most common passwords', (password) => {
    expect(passwordRefusal('zhangwei', password)).toBe(PASSWORD_TOO_COMMON);
  });

  it.each(['abcdefgh', '19900101', 'password-1', 'qwertyuiop1', 'aaaaaaaaaaaa'])(
    'refuses %s as too easily guessed',
    (password) => {
      expect(passwordRefusal('zhangwei', password)).toBe(PASSWORD_TOO_GUESSABLE);
    },
  );

  it.each([
    ['zhangwei', 'zhangwei2024'],
    ['zhangwei', 'Zhangwei-fine-9x'],
    ['ZhangWei', 'my-zhangwei-Kq7#vM2p'],
    ['zhang.wei', `${STRONG}ZHANG.WEI`],
  ])('refuses for %s a password with the username in any letter case: %s', (username, password) => {
    expect(passwordRefusal(username, password)).toBe(PASSWORD_HAS_USERNAME);
  });

  it('looks for the username in the whole password, past the part it estimates', () => {
    const password = `${STRONG.repeat(15)}zhangwei`;
    expect(password).toHaveLength(128);
    expect(passwordRefusal('zhangwei', password)).toBe(PASSWORD_HAS_USERNAME);
  });

  it.each(['iewgnahz', 'zh4ngw31', 'Zh@ngwei!'])(
    'gives the estimator the username: %s, reversed or l33t, is refused for zhangwei alone',
    (password) => {
      expect(passwordRefusal('zhangwei', password)).toBe(PASSWORD_TOO_GUESSABLE);
      expect(passwordRefusal('someone', password)).toBeUndefined();
    },
  );

  it.each([
    STRONG,
    'Bluefinch-Orbit-42',
    'correct horse battery staple',
    'Tr0ub4dor&3',
    STRONG.repeat(16),
    '密钥长城夜雨灯塔'.repeat(16),
    '🙂🚀🌲🎲🍋🐙🎈🦊'.repeat(16),
  ])('accepts %s', (password) => {
    expect(passwordRefusal('zhangwei', password)).toBeUndefined();
  });

  it('does not look for a username shorter than 3 characters (an old account)', () => {
    expect(passwordRefusal('or', 'Bluefinch-Orbit-42')).toBeUndefined();
    expect(passwordRefusal('orb', 'Bluefinch-Orbit-42')).toBe(PASSWORD_HAS_USERNAME);
  });

  it('estimates the first 24 characters: weak ones are refused whatever follows, strong ones are enough', () => {
    expect(passwordRefusal('zhangwei', `${'a'.repeat(24)}${STRONG}`)).toBe(PASSWORD_TOO_GUESSABLE);
    expect(passwordRefusal('zhangwei', `${STRONG.repeat(3)}${'a'.repeat(104)}`)).toBeUndefined();
  });
});
