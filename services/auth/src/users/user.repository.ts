import {
  isMysqlUnavailable,
  type Pool,
  queryWithin,
  type ResultSetHeader,
  type RowDataPacket,
  StoreUnavailableError,
} from '@svc/common';

export interface UserRow {
  id: number;
  username: string;
  password: string;
  roles: string;
}

/**
 * Users in MySQL. `queryTimeoutMs` bounds each statement, so a stuck server
 * cannot hold a request; an unreachable one is a StoreUnavailableError.
 */
export function userRepository(pool: Pool, queryTimeoutMs = 5000) {
  async function query<T extends RowDataPacket[] | ResultSetHeader>(
    sql: string,
    values: unknown[],
  ): Promise<T> {
    try {
      return await queryWithin<T>(pool, queryTimeoutMs, sql, values);
    } catch (err) {
      if (isMysqlUnavailable(err)) throw new StoreUnavailableError('mysql', err);
      throw err;
    }
  }

  return {
    /**
     * The user whose name equals `username` apart from letter case. The column's
     * collation is also blind to accents and trailing spaces, so its matches are
     * narrowed to the ones that differ only in case.
     */
    async findByUsername(username: string): Promise<UserRow | undefined> {
      const rows = await query<RowDataPacket[]>(
        'SELECT id, username, password, roles FROM users WHERE username = ?',
        [username],
      );
      const wanted = username.toLowerCase();
      return rows.find((row) => String(row.username).toLowerCase() === wanted) as
        | UserRow
        | undefined;
    },

    /** The new user's id, or undefined when the name is taken (in any letter case). */
    async insert(username: string, passwordHash: string): Promise<number | undefined> {
      try {
        const result = await query<ResultSetHeader>(
          'INSERT INTO users (username, password) VALUES (?, ?)',
          [username, passwordHash],
        );
        return result.insertId;
      } catch (err) {
        if ((err as { code?: unknown }).code === 'ER_DUP_ENTRY') return undefined;
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
      const result = await query<ResultSetHeader>(sql, values);
      return result.affectedRows === 1;
    },
  };
}

export type UserRepository = ReturnType<typeof userRepository>;
