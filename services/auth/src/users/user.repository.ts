import { type Database, DuplicateEntryError, type Statement } from '@svc/common';

export interface UserRow {
  id: number;
  username: string;
  password: string;
  roles: string;
  createdAt: Date;
  /** When the password was last changed through the service; null when never. */
  passwordChangedAt: Date | null;
  /** Whether TOTP is on: a login then waits for its second step. */
  totp: boolean;
}

const USER = `SELECT u.id, u.username, u.password, u.roles, u.create_time AS createdAt,
  c.changed_at AS passwordChangedAt, t.user_id IS NOT NULL AS totp
  FROM users u LEFT JOIN password_changes c ON c.user_id = u.id
  LEFT JOIN user_totp t ON t.user_id = u.id AND t.enabled_at IS NOT NULL
  WHERE u.username = ?`;

/** Users in MySQL; the Database turns a failure into a domain error (StoreUnavailableError…). */
export function userRepository(db: Database) {
  return {
    /**
     * The user whose name equals `username` apart from letter case. The column's
     * collation is also blind to accents and trailing spaces, so its matches are
     * narrowed to the ones that differ only in case.
     */
    async findByUsername(username: string): Promise<UserRow | undefined> {
      const rows = await db.select<Omit<UserRow, 'totp'> & { totp: number }>(USER, [username]);
      const wanted = username.toLowerCase();
      const row = rows.find(({ username }) => String(username).toLowerCase() === wanted);
      return row && { ...row, totp: Number(row.totp) === 1 };
    },

    /** The new user's id, or undefined when the name is taken (in any letter case). */
    async insert(username: string, passwordHash: string): Promise<number | undefined> {
      try {
        const result = await db.write('INSERT INTO users (username, password) VALUES (?, ?)', [
          username,
          passwordHash,
        ]);
        return result.insertId;
      } catch (err) {
        if (err instanceof DuplicateEntryError) return undefined;
        throw err;
      }
    },

    /**
     * A new hash of the same password (a rehash), only while the stored one is
     * still `expected`: it must not undo a password change that happened meanwhile.
     */
    async rehash(id: number, passwordHash: string, expected: string): Promise<boolean> {
      const sql = 'UPDATE users SET password = ? WHERE id = ? AND password = ?';
      return (await db.update(sql, [passwordHash, id, expected])) === 1;
    },

    /**
     * A new password: the hash, when it changed, and `alongside` (its security
     * event) in one transaction, whose COMMIT is the change. A failure before
     * it wrote nothing; one of the COMMIT itself is an OutcomeUnknownError.
     */
    async changePassword(id: number, passwordHash: string, alongside: Statement[]): Promise<void> {
      await db.readCommitted(async (run) => {
        await run('UPDATE users SET password = ? WHERE id = ?', [passwordHash, id]);
        await run(
          `INSERT INTO password_changes (user_id, changed_at) VALUES (?, NOW(3))
           ON DUPLICATE KEY UPDATE changed_at = VALUES(changed_at)`,
          [id],
        );
        for (const { sql, values } of alongside) await run(sql, values);
      });
    },
  };
}

export type UserRepository = ReturnType<typeof userRepository>;
