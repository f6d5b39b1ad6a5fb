import { type MatchExtended, ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as commonWords } from '@zxcvbn-ts/language-common';
import { dictionary as englishWords } from '@zxcvbn-ts/language-en';
import {
  PASSWORD_HAS_USERNAME,
  PASSWORD_TOO_COMMON,
  PASSWORD_TOO_GUESSABLE,
} from './user.messages.js';

/**
 * zxcvbn-ts's score, 0 to 4; below 2 it estimates fewer than 10^6 guesses: a
 * password of its common-password lists, or a word, name, date, keyboard walk
 * or sequence with little around it. 10^6 guesses online at 100 an hour
 * (zxcvbn-ts's throttled attacker) take over a year.
 */
const MIN_SCORE = 2;

/*
 * The estimator's cost grows with the length and with the l33t spellings it
 * tries, each a pass over every dictionary. With its defaults (256
 * characters, 100 spellings) one 128-character password of letters, digits
 * and symbols took 1.2 to 2 s of CPU, on the event loop, for anyone who can
 * register. So it estimates the first 24 characters, which hold any word of
 * its lists (the longest has 23): a prefix that long guessed within 10^6 is a
 * weak password whatever follows. And it tries 5 spellings: of the l33t forms
 * of the list's first 1500 passwords that the defaults find weak, 95.7% are
 * still refused (10 spellings: 96.6%, at 1.5 times the cost of a long one).
 * A typical password's check then costs 5 to 8 ms (two shared cores), a
 * 128-character one two to three times that (bench/scenarios/password-check.ts).
 */
const ESTIMATED_LENGTH = 24;
const L33T_VARIANTS = 5;

/** Built once: the dictionaries are ranked when the factory is made. */
const estimator = new ZxcvbnFactory({
  dictionary: { ...commonWords, ...englishWords },
  graphs: adjacencyGraphs,
  maxLength: ESTIMATED_LENGTH,
  l33tMaxSubstitutions: L33T_VARIANTS,
});

/**
 * A username shorter than register's 3 characters (an account of the old
 * system) is not looked for: one or two letters would refuse most passwords.
 */
const MIN_USERNAME_LENGTH = 3;

/** The whole (estimated) password is one word of a common-password list, maybe l33t or reversed. */
function isCommonPassword(sequence: MatchExtended[]): boolean {
  const [only] = sequence;
  return (
    sequence.length === 1 &&
    only?.pattern === 'dictionary' &&
    String(only.dictionaryName).startsWith('passwords')
  );
}

/**
 * Why `password` cannot be the new password of `username`, or undefined when
 * it can. Offline: the lists ship in the packages. Only new passwords are
 * judged; logins never are.
 */
export function passwordRefusal(username: string, password: string): string | undefined {
  const name = username.toLowerCase();
  if (name.length >= MIN_USERNAME_LENGTH && password.toLowerCase().includes(name)) {
    return PASSWORD_HAS_USERNAME;
  }
  const { score, sequence } = estimator.check(password, [username]);
  if (score >= MIN_SCORE) return undefined;
  return isCommonPassword(sequence) ? PASSWORD_TOO_COMMON : PASSWORD_TOO_GUESSABLE;
}
