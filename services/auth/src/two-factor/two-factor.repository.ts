import type { Database, Statement } from '@svc/common';

/** A user's TOTP secret, whether a code of it was confirmed, and the step of the last code used. */
export interface UserTotp {
  secret: Buffer;
  enabled: boolean;
  lastStep: number;
}

/** What a second step brings, verified as far as it can be without writing: a code's step, or a recovery code's hash. */
export type Proof = { step: number } | { recoveryHash: Buffer };

const insertCodes = (userId: number, hashes: Buffer[]): Statement => ({
  sql: `INSERT INTO recovery_codes (user_id, code_hash) VALUES ${hashes.map(() => '(?, ?)').join(', ')}`,
  values: hashes.flatMap((hash) => [userId, hash]),
});

const deleteCodes = (userId: number): Statement => ({
  sql: 'DELETE FROM recovery_codes WHERE user_id = ?',
  values: [userId],
});

/** The statement that spends `proof`: it matches one row only while the proof is unspent. */
function useOf(userId: number, proof: Proof): Statement {
  if ('step' in proof) {
    return {
      sql: `UPDATE user_totp SET last_step = ?
        WHERE user_id = ? AND enabled_at IS NOT NULL AND last_step < ?`,
      values: [proof.step, userId, proof.step],
    };
  }
  return {
    sql: 'DELETE FROM recovery_codes WHERE user_id = ? AND code_hash = ?',
    values: [userId, proof.recoveryHash],
  };
}

/** TOTP secrets and recovery codes in MySQL (migration 005). */
export function twoFactorRepository(db: Database) {
  return {
    async totpOf(userId: number): Promise<UserTotp | undefined> {
      const [row] = await db.select<{ secret: Buffer; enabled: number; last_step: number }>(
        'SELECT secret, enabled_at IS NOT NULL AS enabled, last_step FROM user_totp WHERE user_id = ?',
        [userId],
      );
      return (
        row && {
          secret: row.secret,
          enabled: Number(row.enabled) === 1,
          lastStep: Number(row.last_step),
        }
      );
    },

    /** Whether the user of this stored spelling has TOTP on. */
    async isOn(username: string): Promise<boolean> {
      const rows = await db.select(
        `SELECT 1 FROM users u JOIN user_totp t ON t.user_id = u.id
         WHERE u.username = ? AND t.enabled_at IS NOT NULL`,
        [username],
      );
      return rows.length > 0;
    },

    /** A new secret waiting for its first code, in place of any other waiting; false when TOTP is on. */
    async setUp(userId: number, secret: Buffer): Promise<boolean> {
      return db.readCommitted(async (run) => {
        const [row] = await run<{ enabled: number }[]>(
          'SELECT enabled_at IS NOT NULL AS enabled FROM user_totp WHERE user_id = ? FOR UPDATE',
          [userId],
        );
        if (row && Number(row.enabled) === 1) return false;
        await run(
          `INSERT INTO user_totp (user_id, secret) VALUES (?, ?)
           ON DUPLICATE KEY UPDATE secret = VALUES(secret), last_step = 0`,
          [userId, secret],
        );
        return true;
      });
    },

    /**
     * Turns on the waiting `secret` (its code of `step` used), with new
     * recovery codes and `alongside` (its event), in one transaction; false,
     * writing nothing, when that secret is no longer the one waiting.
     */
    async enable(
      userId: number,
      { secret, step, hashes }: { secret: Buffer; step: number; hashes: Buffer[] },
      alongside: Statement[],
    ): Promise<boolean> {
      return db.readCommitted(async (run) => {
        const turnedOn = await run<{ affectedRows: number }>(
          `UPDATE user_totp SET enabled_at = NOW(3), last_step = ?
           WHERE user_id = ? AND secret = ? AND enabled_at IS NULL`,
          [step, userId, secret],
        );
        if (turnedOn.affectedRows !== 1) return false;
        for (const { sql, values } of [
          deleteCodes(userId),
          insertCodes(userId, hashes),
          ...alongside,
        ]) {
          await run(sql, values);
        }
        return true;
      });
    },

    /**
     * Uses `proof` (a code's step later than the last one used, or a recovery
     * code not yet used) and writes `alongside` with it, in one transaction:
     * of two requests with the same proof, one wins. False, writing nothing,
     * when the proof is spent.
     */
    async withProof(userId: number, proof: Proof, alongside: Statement[]): Promise<boolean> {
      return db.readCommitted(async (run) => {
        const { sql, values } = useOf(userId, proof);
        const used = await run<{ affectedRows: number }>(sql, values);
        if (used.affectedRows !== 1) return false;
        for (const { sql, values } of alongside) await run(sql, values);
        return true;
      });
    },

    /** The statements that turn TOTP off: the secret and the recovery codes go. */
    disabling: (userId: number): Statement[] => [
      { sql: 'DELETE FROM user_totp WHERE user_id = ?', values: [userId] },
      deleteCodes(userId),
    ],

    /** The statements that put `hashes` in place of the user's recovery codes. */
    renewing: (userId: number, hashes: Buffer[]): Statement[] => [
      deleteCodes(userId),
      insertCodes(userId, hashes),
    ],
  };
}

export type TwoFactorRepository = ReturnType<typeof twoFactorRepository>;
