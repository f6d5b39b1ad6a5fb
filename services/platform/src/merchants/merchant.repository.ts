import type { z } from 'zod';
import type { Database } from '../db/database.js';
import { isoTime } from '../db/iso-time.js';
import { limitClause, type Page } from '../db/page.js';
import type { merchantRow, NewMerchant } from './merchant.schema.js';

export type MerchantRow = z.output<typeof merchantRow>;

export function merchantRepository(db: Database) {
  return {
    list(page?: Page): Promise<MerchantRow[]> {
      const limit = limitClause(page);
      return db.select<MerchantRow>(
        `SELECT id, name, address, phone, status, ${isoTime('create_time')} AS create_time FROM merchants ORDER BY id${limit.sql}`,
        limit.values,
      );
    },

    async count(): Promise<number> {
      const [row] = await db.select<{ total: number }>('SELECT COUNT(*) AS total FROM merchants');
      return row?.total ?? 0;
    },

    insert(merchant: NewMerchant): Promise<number> {
      return db.insert('INSERT INTO merchants (name, address, phone) VALUES (?, ?, ?)', [
        merchant.name,
        merchant.address,
        merchant.phone,
      ]);
    },

    /** False when no merchant has the id. */
    async approve(id: number): Promise<boolean> {
      return (await db.update('UPDATE merchants SET status = 1 WHERE id = ?', [id])) > 0;
    },
  };
}

export type MerchantRepository = ReturnType<typeof merchantRepository>;
