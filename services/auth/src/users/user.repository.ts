import { type Database, DuplicateEntryError } from '@svc/common';

export interface UserRow {
  id: number;
  username: string;
  password: string;
  roles: string;
}

/** Users in MySQL; the Database turns a failure into a domain error (StoreUnavailableError…). */
export function userRepository(db: Database) {
  return {
    /**
     * The user whose name equals `username` apart from letter case. The column's
     * collation is also blind to accents and trailing spaces, so its matches are
     * narrowed to the ones that differ only in case.
     */
    async findByUsername(username: string): Promise<UserRow | undefined> {
      const rows = await db.select<UserRow>(
        'SELECT id, username, password, roles FROM users WHERE username = ?',
        [username],
      );
      const wanted = username.toLowerCase();
      return rows.find((row) => String(row.username).toLowerCase() === wanted);
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
     * Replaces the hash; with `expected`, only while the stored one is still that
     * (a rehash must not undo a password change that happened meanwhile).
     */
    async updatePassword(id: number, passwordHash: string, expected?: string): Promise<boolean> {
      const sql =
        expected === undefined
          ? 'UPDATE users SET password = ? WHERE id = ?'
          : 'UPDATE users SET password = ? WHERE id = ? AND password = ?';
      const values = expected === undefined ? [passwordHash, id] : [passwordHash, id, expected];
      return (await db.update(sql, values)) === 1;
    },
  };
}

export type UserRepository = ReturnType<typeof userRepository>;
