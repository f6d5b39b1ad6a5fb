import type { Database, Statement } from '@svc/common';

export const SECURITY_EVENT_TYPES = [
  'login',
  'login_failed',
  'locked',
  'password_changed',
  'session_ended',
  'logout_all',
  'login_2fa_failed',
  'totp_enabled',
  'totp_disabled',
  'recovery_code_used',
  'recovery_codes_renewed',
] as const;

export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

/** An event as it is written: who did it from where, and what it touched. */
export interface NewSecurityEvent {
  type: SecurityEventType;
  at: Date;
  ip: string;
  userAgent: string | null;
  sessionId?: string;
  /** Logins only: no device token of the user came with it. */
  newDevice?: boolean;
}

/** Where a page of a user's events ends: its last row. */
export interface EventPosition {
  at: Date;
  id: number;
}

export interface SecurityEventRow {
  id: number;
  type: SecurityEventType;
  at: Date;
  ip: string;
  user_agent: string | null;
  session_id: string | null;
  new_device: number | null;
}

const COLUMNS = 'user_id, type, at, ip, user_agent, session_id, new_device';

const valuesOf = (event: NewSecurityEvent) => [
  event.type,
  event.at,
  event.ip,
  event.userAgent,
  event.sessionId ?? null,
  event.newDevice === undefined ? null : Number(event.newDevice),
];

const INSERT = `INSERT INTO security_events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** Users' security events in MySQL (`security_events`). */
export function securityEventRepository(db: Database) {
  /** The event's INSERT, for a transaction that writes it with what it records. */
  const insertion = (userId: number | null, event: NewSecurityEvent): Statement => ({
    sql: INSERT,
    values: [userId, ...valuesOf(event)],
  });

  /** Writes the event; resolves its id. */
  async function insert(userId: number | null, event: NewSecurityEvent): Promise<number> {
    const { sql, values } = insertion(userId, event);
    return (await db.write(sql, values)).insertId;
  }

  return {
    insertion,
    insert,

    /**
     * The same for the user of this exact stored spelling (a session's); the
     * first comparison finds the row by the index, the second keeps the exact
     * name. The user is read as a plain read, so a user row another
     * transaction holds never stalls the write. Nothing is written when the
     * user is gone (undefined).
     */
    async insertForUsername(
      username: string,
      event: NewSecurityEvent,
    ): Promise<number | undefined> {
      const [user] = await db.select<{ id: number }>(
        'SELECT id FROM users WHERE username = ? AND username = ? COLLATE utf8mb4_bin',
        [username, username],
      );
      return user === undefined ? undefined : insert(user.id, event);
    },

    /** Takes back an event whose change did not happen. */
    async remove(id: number): Promise<void> {
      await db.update('DELETE FROM security_events WHERE id = ?', [id]);
    },

    /** The user's events since `since`, newest first, after `after` when given. */
    page(userId: number, since: Date, after: EventPosition | undefined, limit: number) {
      const before = after ? ' AND (at < ? OR (at = ? AND id < ?))' : '';
      const values = after ? [userId, since, after.at, after.at, after.id] : [userId, since];
      return db.select<SecurityEventRow>(
        `SELECT id, type, at, ip, user_agent, session_id, new_device FROM security_events
         WHERE user_id = ? AND at >= ?${before} ORDER BY at DESC, id DESC LIMIT ${Number(limit)}`,
        values,
      );
    },

    async count(userId: number, since: Date): Promise<number> {
      const [row] = await db.select<{ total: number }>(
        'SELECT COUNT(*) AS total FROM security_events WHERE user_id = ? AND at >= ?',
        [userId, since],
      );
      return Number(row?.total ?? 0);
    },

    /** Deletes up to `limit` events older than `cutoff`; resolves how many it deleted. */
    async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
      return db.update(
        `DELETE FROM security_events WHERE at < ? ORDER BY at LIMIT ${Number(limit)}`,
        [cutoff],
      );
    },

    /** The same for the events of no user (the first key's NULL range), older than `cutoff`. */
    async deleteOfNoUserBefore(cutoff: Date, limit: number): Promise<number> {
      return db.update(
        `DELETE FROM security_events WHERE user_id IS NULL AND at < ? ORDER BY at LIMIT ${Number(limit)}`,
        [cutoff],
      );
    },
  };
}

export type SecurityEventRepository = ReturnType<typeof securityEventRepository>;
