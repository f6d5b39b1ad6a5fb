import { passwordRefusal } from '../../services/auth/src/users/password-strength.js';
import { progress, type ResultRow, row } from '../lib/report.js';
import type { BenchSettings } from '../lib/settings.js';
import { median } from '../lib/turns.js';

const USERNAME = 'bench_user';
/** A password as people make them: two words and two digits. */
const TYPICAL = 'Bluefinch-Orbit-42';
/** The longest the rules allow, as a password manager makes it: letters, digits and symbols. */
const LONGEST =
  'q8Jz%Lw2!Vn5#Rt0^Ck7&Mb4*Xs9(Hd3)Pf6_Gy1+Ua8=Eo2~Ij5?Zl0<Nc7>Wk4;Tm9:Qb3,Sv6.' +
  'Dh1/Rx8|Fp2[Yg5]Ae0{Ou7}Ln4-Kw9@Jc3$Mz6Bq1Vt8XyZ2#k';

/** CPU µs per check over `count` checks of `password`. */
function cpuPerCheck(password: string, count: number): number {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) passwordRefusal(USERNAME, password);
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

/**
 * Scenario: what judging one new password costs the auth service
 * (users/password-strength.ts, on the event loop of a register or a password
 * change), in this process: a typical password and a 128-character one, each
 * the median of rounds of many checks, taken in turns.
 */
export async function passwordCheckCost(settings: BenchSettings): Promise<ResultRow[]> {
  const cases = [
    { name: `a typical password (${TYPICAL.length} characters)`, password: TYPICAL, count: 400 },
    { name: `a ${LONGEST.length}-character one`, password: LONGEST, count: 40 },
  ];
  for (const { password } of cases) {
    if (passwordRefusal(USERNAME, password) !== undefined) {
      throw new Error(`password check: the bench's password is refused: ${password}`);
    }
    cpuPerCheck(password, 10);
  }
  const rounds = cases.map((): number[] => []);
  for (let round = 0; round < 7; round++) {
    cases.forEach(({ password, count }, i) => {
      rounds[i]?.push(cpuPerCheck(password, settings.quick ? Math.ceil(count / 4) : count));
    });
  }
  return cases.map(({ name }, i) => {
    const us = median(rounds[i] ?? []);
    progress(`password check: ${name}: ${Math.round(us)} us of CPU`);
    return row({
      scenario: `auth: a new password's check, ${name} (CPU µs; ratio column)`,
      rps: 1e6 / us,
      p50_ms: 0,
      p99_ms: 0,
      rss_mb: 0,
      baseline: null,
      baseline_rps: null,
      ratio: us,
      target: 'reported',
      met: null,
    });
  });
}
