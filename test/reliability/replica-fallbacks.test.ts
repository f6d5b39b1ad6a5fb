import { randomBytes } from 'node:crypto';
import type { RowDataPacket } from '@svc/common';
import {
  mysqlVariables,
  parsePrometheusText,
  sampleValue,
  startMariaDbReplication,
  type TestMariaDbReplication,
} from '@svc/test-kit';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

/**
 * MYSQL_REPLICA_HOSTS naming two replicas, on real platform processes and a
 * real MariaDB primary with two GTID replicas: a replica that lags is passed
 * over for the next one before the primary, and a whole order list that fails
 * on a replica after its wait is read from the primary.
 */

const WAIT_MS = 100;
const DATABASE = `fallbacks_${randomBytes(4).toString('hex')}`;

let replication: TestMariaDbReplication;
let service: ServiceProcess;

async function get(path: string) {
  const began = performance.now();
  const res = await fetch(`${service.url}${path}`);
  const body = (await res.json()) as { code: number; data: { id: number }[] };
  return { status: res.status, body, ms: performance.now() - began };
}

async function post(path: string, body: object) {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { code: number; data: { id: number } };
}

const addMerchant = (name: string) =>
  post('/api/merchant/add', { name, address: '北京市朝阳区1号', phone: '13800138000' });

/** The platform's own count of list reads that went to `target`. */
async function readsOn(target: 'replica' | 'primary') {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return sampleValue(parsePrometheusText(text), 'mysql_list_reads_total', { target });
}

/** One statement as root on a server's port, in this file's database. */
async function onServer(port: number, sql: string) {
  const conn = await mysql.createConnection({
    host: '127.0.0.1',
    port,
    user: 'root',
    database: DATABASE,
  });
  try {
    const [rows] = await conn.query(sql);
    return rows;
  } finally {
    await conn.end();
  }
}

/** Index and row reads a server has done since it started: its share of the lists. */
async function rowsRead(port: number): Promise<number> {
  const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
  try {
    const [rows] = await conn.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Handler_read%'");
    return rows.reduce((sum, row) => sum + Number(row.Value), 0);
  } finally {
    await conn.end();
  }
}

const ids = (listed: { body: { data: { id: number }[] } }) => listed.body.data.map((row) => row.id);

beforeAll(async () => {
  replication = await startMariaDbReplication({ replicas: 2 });
  service = await startService('platform', {
    ...mysqlVariables(replication.primary.settings(DATABASE)),
    MYSQL_REPLICA_HOSTS: replication.replicas.map(({ port }) => `127.0.0.1:${port}`).join(','),
    REPLICA_WAIT_MS: String(WAIT_MS),
  });
  const merchant = await addMerchant('张三家政');
  const offering = await post('/api/service/add', {
    merchant_id: merchant.data.id,
    name: '日常保洁',
    price: 150,
    category: '保洁',
  });
  for (let i = 0; i < 30; i++) {
    await post('/api/order/create', {
      service_id: offering.data.id,
      user_name: `客户${i}`,
      user_phone: '13912345678',
    });
  }
  await replication.replicaCaughtUp();
});
afterEach(async () => {
  await replication.startReplicaSqlThread(0);
  await replication.replicaCaughtUp();
});
afterAll(async () => {
  await service?.stop();
  await replication?.stop();
});

describe('two replicas', () => {
  it('passes over a replica that lags past the wait for the next one, before the primary', async () => {
    const [lagging, keepingUp] = replication.replicas.map(({ port }) => port) as [number, number];
    await replication.stopReplicaSqlThread(0);
    const primaryBefore = await readsOn('primary');
    const readsBefore = await rowsRead(keepingUp);
    for (let i = 0; i < 6; i++) {
      const added = await addMerchant(`滞后商户${i}`);
      for (const path of ['/api/merchant/list?page=1&pageSize=50', '/api/merchant/list']) {
        const listed = await get(path);
        expect(listed.status).toBe(200);
        expect(ids(listed)).toContain(added.data.id);
        // At most one wait on the lagging replica, then the next one answers.
        expect(listed.ms).toBeLessThan(WAIT_MS + 400);
      }
    }
    expect(await readsOn('primary')).toBe(primaryBefore);
    expect((await rowsRead(keepingUp)) - readsBefore).toBeGreaterThan(6 * 2 * 7);
    expect(lagging).not.toBe(keepingUp);
  });

  it('reads a whole order list that fails on a replica after its wait from the primary', async () => {
    // Both replicas lose the table (as a broken replica might): the wait succeeds, the read fails.
    for (const { port } of replication.replicas) {
      await onServer(port, 'RENAME TABLE orders TO orders_away');
    }
    try {
      const primaryBefore = await readsOn('primary');
      const whole = await get('/api/order/list');
      expect(whole.status).toBe(200);
      expect(whole.body.code).toBe(200);
      expect(whole.body.data).toHaveLength(30);
      const filtered = await get('/api/order/list?status=0');
      expect(filtered.body.data).toHaveLength(30);
      expect(await readsOn('primary')).toBe(primaryBefore + 2);
    } finally {
      for (const { port } of replication.replicas) {
        await onServer(port, 'RENAME TABLE orders_away TO orders');
      }
    }
    const again = await get('/api/order/list');
    expect(again.body.data).toHaveLength(30);
  });
});
