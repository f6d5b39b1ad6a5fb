import { Writable } from 'node:stream';
import {
  connectRedis,
  createLogger,
  createMetrics,
  createMysqlPool,
  migrate,
  type Pool,
} from '@svc/common';
import { createTestDatabase, createTestRedis } from '@svc/test-kit';
import type { Express } from 'express';
import { createApp as createAuthApp } from '../../services/auth/src/app.js';
import { migrationsDir as authMigrations } from '../../services/auth/src/migrations-dir.js';
import { createApp as createPlatformApp } from '../../services/platform/src/app.js';
import { migrationsDir as platformMigrations } from '../../services/platform/src/migrations-dir.js';

/**
 * The two apps as their main.ts builds them with an empty environment (metrics
 * on and served by the app, info logs, no administrator token), on stores of
 * this file's own. The logs are written nowhere, through the production logger.
 */
export interface WalkApps {
  platform: Express;
  auth: Express;
  close(): Promise<void>;
}

const logger = (name: string) =>
  createLogger({ name, level: 'info' }, new Writable({ write: (_line, _enc, done) => done() }));

async function database(multipleStatements: boolean, migrations: string) {
  const created = await createTestDatabase();
  const pool: Pool = await createMysqlPool({ ...created.settings, multipleStatements });
  await migrate(pool, migrations);
  // A running service's pool has its connections open: one opened during a walk would add its handler.
  const held = await Promise.all(Array.from({ length: 4 }, () => pool.getConnection()));
  for (const conn of held) conn.release();
  return {
    pool,
    async close() {
      await pool.end();
      await created.drop();
    },
  };
}

export async function walkApps(): Promise<WalkApps> {
  // The platform's main asks for multiple statements: keyed creates send their transaction as one query.
  const platformDb = await database(true, platformMigrations);
  const authDb = await database(false, authMigrations);
  const redis = await connectRedis((await createTestRedis()).settings);
  const platform = createPlatformApp({
    pool: platformDb.pool,
    logger: logger('platform'),
    metrics: createMetrics({ pool: platformDb.pool }),
    metricsRoute: true,
  });
  const auth = createAuthApp({
    pool: authDb.pool,
    redis,
    logger: logger('auth'),
    metrics: createMetrics({ pool: authDb.pool }),
    metricsRoute: true,
  });
  return {
    platform,
    auth,
    async close() {
      redis.disconnect();
      await Promise.all([platformDb.close(), authDb.close()]);
    },
  };
}

/** POSTs `body` as JSON; `headers` added. */
export const postJson = (url: string, body: object, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
