import type { Socket } from 'node:net';
import {
  createTestRedis,
  mysqlSettingsFromUrl,
  mysqlVariables,
  startMariaDbServer,
  type TestServer,
} from '@svc/test-kit';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HEAP_PROBE, liveMemoryMb, rssMb, settledLiveMemoryMb } from './support/memory.js';
import { readToEnd, stallGet, startGet } from './support/raw-socket.js';
import { send } from './support/requests.js';
import { type ServiceProcess, startService } from './support/service-process.js';

/*
 * Phones on mobile networks: they hang up mid-answer and stop reading. Each
 * test runs a real platform (or auth) process, on a MariaDB of its own whose
 * net_write_timeout is left at the server's default (60 s), so nothing the
 * service does not do itself would free a connection in time.
 */
const ORDERS = 50_000;
/** What 200 aborted answers may leave behind: a leak of 10 KB each would show. */
const LEAK_BUDGET_MB = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let mariadb: TestServer;
let admin: mysql.Connection;
const database = 'slow_clients';

beforeAll(async () => {
  mariadb = await startMariaDbServer();
  const { database: _none, ...server } = mysqlSettingsFromUrl(mariadb.url, '');
  admin = await mysql.createConnection(server);
});
afterAll(async () => {
  await admin?.end();
  await mariadb?.destroy();
});

let running: ServiceProcess[] = [];
let sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets = [];
  await Promise.all(running.map((service) => service.stop()));
  running = [];
});

async function platform(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const service = await startService('platform', {
    ...mysqlVariables(mysqlSettingsFromUrl(mariadb.url, database)),
    LOG_LEVEL: 'warn',
    ...env,
  });
  running.push(service);
  return service;
}

/** 50,000 orders, seeded once, by doubling in SQL. */
async function seedOrders(): Promise<void> {
  const [[row]] = (await admin.query(`SELECT COUNT(*) AS n FROM ${database}.orders`)) as [
    { n: number }[],
    unknown,
  ];
  if (Number(row?.n) >= ORDERS) return;
  await admin.query(
    `INSERT INTO ${database}.merchants (name, address, phone) VALUES ('张三家政', '北京市朝阳区', '13800138000')`,
  );
  await admin.query(
    `INSERT INTO ${database}.services (merchant_id, name, price, category) SELECT id, '日常保洁', 150, '保洁' FROM ${database}.merchants LIMIT 1`,
  );
  await admin.query(
    `INSERT INTO ${database}.orders (service_id, user_name, user_phone) SELECT id, '一位名字很长的顾客一位名字很长的顾客一位名字很长的顾客', '13912345678' FROM ${database}.services LIMIT 1`,
  );
  for (let n = 1; n < ORDERS; n *= 2) {
    await admin.query(
      `INSERT INTO ${database}.orders (service_id, user_name, user_phone, status)
       SELECT service_id, user_name, user_phone, id % 2 FROM ${database}.orders LIMIT ${Math.min(n, ORDERS - n)}`,
    );
  }
}

/**
 * Connections of the service that the server is still working for on an
 * order list. The service's background steps (the events' publisher every
 * 50 ms, the sweepers) run statements of their own on other tables, which
 * a look at one instant may catch.
 */
async function busyConnections(): Promise<number> {
  const [rows] = (await admin.query(
    `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST
      WHERE DB = ? AND COMMAND <> 'Sleep' AND ID <> CONNECTION_ID() AND INFO LIKE '%FROM orders o%'`,
    [database],
  )) as [{ n: number }[], unknown];
  return Number(rows[0]?.n);
}

async function within(ms: number, work: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await work();
  const took = Date.now() - started;
  expect(took, `answered in ${took} ms`).toBeLessThan(ms);
  return took;
}

describe('platform: clients that hang up in the middle of a whole order list', () => {
  it('200 aborted 50,000-row lists on a 96 MB heap: the process lives, memory and connections come back', async () => {
    const service = await platform({ NODE_OPTIONS: `--max-old-space-size=96 ${HEAP_PROBE}` });
    await seedOrders();
    const whole = await send(`${service.url}/api/order/list`);
    expect(whole.kind).toBe('answered');
    const started = await settledLiveMemoryMb(service);

    const worker = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const socket = await startGet(service.url, '/api/order/list');
        socket.destroy();
      }
    };
    const t0 = Date.now();
    await Promise.all([worker(100), worker(100)]);
    const stormMs = Date.now() - t0;

    await expect.poll(busyConnections, { timeout: 2000, interval: 100 }).toBe(0);
    // Answers the storm left in flight finish within moments; a leak stays.
    await expect
      .poll(() => liveMemoryMb(service), { timeout: 5000, interval: 250 })
      .toBeLessThanOrEqual(started + LEAK_BUDGET_MB);
    console.log(
      `aborted lists: 200 in ${stormMs} ms, live memory ${started.toFixed(1)} MB before, ${(await liveMemoryMb(service)).toFixed(1)} MB after (rss ${(await rssMb(service.pid)).toFixed(1)} MB)`,
    );
    const again = await send(`${service.url}/api/order/list?page=1&pageSize=5`);
    expect(again).toMatchObject({ kind: 'answered', body: { code: 200 } });
    expect(service.output()).not.toContain('heap out of memory');
  });
});

describe('platform: clients that stop reading', () => {
  /** 20 stalled whole order lists, then the short routes, five rounds: each within 1 s. */
  async function stalledLists(service: ServiceProcess) {
    await seedOrders();
    for (let i = 0; i < 20; i++) sockets.push(await stallGet(service.url, '/api/order/list'));
    await sleep(300);

    const times: number[] = [];
    for (let round = 0; round < 5; round++) {
      times.push(
        await within(1000, async () => {
          const merchants = await send(`${service.url}/api/merchant/list`);
          expect(merchants).toMatchObject({ kind: 'answered', body: { code: 200 } });
        }),
        await within(1000, async () => {
          const services = await send(`${service.url}/api/service/list`);
          expect(services).toMatchObject({ kind: 'answered', body: { code: 200 } });
        }),
        await within(1000, async () => {
          const created = await send(`${service.url}/api/order/create`, {
            method: 'POST',
            body: { service_id: 1, user_name: '李四', user_phone: '13912345678' },
          });
          expect(created).toMatchObject({ kind: 'answered', body: { code: 200 } });
        }),
      );
    }
    console.log(`short routes beside 20 stalled lists: slowest ${Math.max(...times)} ms`);
    return Promise.all(sockets.slice(2).map((socket) => readToEnd(socket)));
  }

  it('20 stalled whole lists too long to keep (twice the pool) cost the short routes nothing', async () => {
    // 1 MB of kept bodies: the 50,000-row list (some 10 MB) is sent as it is read.
    const answers = await stalledLists(await platform({ LIST_CACHE_MB: '1' }));
    // The lists beyond LIST_CONCURRENCY were told to come back, in their own envelope.
    const busy = answers.filter((answer) => answer.text.startsWith('HTTP/1.1 503'));
    expect(busy.length).toBeGreaterThanOrEqual(16);
    for (const answer of busy) {
      expect(answer.text).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(answer.text).toContain('"code":503,"message":"获取失败"');
    }
  });

  it('20 stalled whole lists that are kept are all answered from one read, and cost the short routes nothing', async () => {
    const service = await platform();
    await seedOrders();
    const whole = await send(`${service.url}/api/order/list`);
    expect(whole.kind).toBe('answered');
    const answers = await stalledLists(service);
    for (const answer of answers) {
      expect(answer.text.startsWith('HTTP/1.1 200')).toBe(true);
      expect(answer.text).toMatch(/\r\netag: "/i);
    }
  });

  it('a stalled reader is cut off after SEND_IDLE_TIMEOUT_MS and its connection freed', async () => {
    // A list too long to keep (1 MB): streamed, holding its connection while the client stalls.
    const service = await platform({ SEND_IDLE_TIMEOUT_MS: '1500', LIST_CACHE_MB: '1' });
    await seedOrders();
    const asked = Date.now();
    const socket = await stallGet(service.url, '/api/order/list');
    sockets.push(socket);
    await sleep(500);
    expect(await busyConnections()).toBe(1);

    await expect.poll(busyConnections, { timeout: 4000, interval: 100 }).toBe(0);
    const freedMs = Date.now() - asked;
    console.log(
      `stalled reader with SEND_IDLE_TIMEOUT_MS=1500: connection freed after ${freedMs} ms`,
    );
    // Freed by the idle timeout, not sooner by anything else.
    expect(freedMs).toBeGreaterThanOrEqual(1500);
    const { bytes, text } = await readToEnd(socket);
    expect(text).toMatch(/^HTTP\/1.1 200/);
    expect(bytes).toBeLessThan(ORDERS * 100);
    expect(service.output()).not.toContain('"level":50');
  });
});

describe('slowloris and idle sockets', () => {
  it('200 idle sockets and 20 dribbled headers while normal requests are served within 1 s', async () => {
    const service = await platform();
    const { openSocket } = await import('./support/raw-socket.js');
    for (let i = 0; i < 200; i++) sockets.push(await openSocket(service.url));
    const dribblers: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const socket = await openSocket(service.url);
      socket.on('error', () => {});
      socket.write('GET /api/merchant/list HTTP/1.1\r\n');
      dribblers.push(socket);
    }
    sockets.push(...dribblers);
    const dribble = setInterval(() => {
      for (const socket of dribblers) if (socket.writable) socket.write('X-A: b\r\n');
    }, 500);
    try {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        times.push(
          await within(1000, async () => {
            const answer = await send(`${service.url}/api/merchant/list?page=1`);
            expect(answer).toMatchObject({ kind: 'answered', body: { code: 200 } });
          }),
        );
        await sleep(100);
      }
      console.log(`beside 200 idle sockets and 20 slowloris: slowest ${Math.max(...times)} ms`);
    } finally {
      clearInterval(dribble);
    }
  });
});

describe('auth: clients that hang up in the middle of its longest answers', () => {
  it('200 aborted downloads of the API reference bundle on a 96 MB heap: it lives, memory comes back', async () => {
    const redis = await createTestRedis();
    const service = await startService('auth', {
      ...mysqlVariables(mysqlSettingsFromUrl(mariadb.url, 'slow_clients_auth')),
      REDIS_URL: redis.url,
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: `--max-old-space-size=96 ${HEAP_PROBE}`,
    });
    running.push(service);
    // Its longest answers: the Swagger UI bundle (about 1.5 MB) and the OpenAPI document.
    const whole = await fetch(`${service.url}/docs/swagger-ui-bundle.js`);
    expect((await whole.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    const started = await settledLiveMemoryMb(service);

    const worker = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const path = i % 2 ? '/docs/swagger-ui-bundle.js' : '/openapi.json';
        (await startGet(service.url, path)).destroy();
      }
    };
    await Promise.all([worker(100), worker(100)]);
    // Answers the storm left in flight finish within moments; a leak stays.
    await expect
      .poll(() => liveMemoryMb(service), { timeout: 5000, interval: 250 })
      .toBeLessThanOrEqual(started + LEAK_BUDGET_MB);
    console.log(
      `auth aborted downloads: live memory ${started.toFixed(1)} MB before, ${(await liveMemoryMb(service)).toFixed(1)} MB after (rss ${(await rssMb(service.pid)).toFixed(1)} MB)`,
    );
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  });
});

describe('requests Node rejects before any route', () => {
  async function exchange(url: string, raw: string): Promise<string> {
    const { openSocket } = await import('./support/raw-socket.js');
    const socket = await openSocket(url);
    const answer = readToEnd(socket);
    socket.write(raw);
    return (await answer).text;
  }

  const parse = (text: string) => {
    const [head = '', body = ''] = text.split('\r\n\r\n');
    return { head, body: JSON.parse(body) as unknown };
  };

  it.each(['platform', 'auth'] as const)(
    '%s: headers too large (431) and a malformed request (400) get a JSON body, an X-Request-Id and a log line',
    async (name) => {
      const service =
        name === 'platform'
          ? await platform({ LOG_LEVEL: 'info' })
          : await startService('auth', {
              ...mysqlVariables(mysqlSettingsFromUrl(mariadb.url, 'slow_clients_auth')),
              REDIS_URL: (await createTestRedis()).url,
            });
      running.push(service);

      const large = parse(
        await exchange(
          service.url,
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        ),
      );
      expect(large.head).toMatch(/^HTTP\/1.1 431 /);
      expect(large.head).toMatch(/\r\ncontent-type: application\/json/i);
      expect(large.head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}/i);
      expect(large.body).toEqual({ code: 431, message: 'Request Header Fields Too Large' });

      const malformed = parse(await exchange(service.url, 'NOT A REQUEST\r\n\r\n'));
      expect(malformed.head).toMatch(/^HTTP\/1.1 400 /);
      expect(malformed.body).toEqual({ code: 400, message: 'Bad Request' });

      const logged = () =>
        service
          .output()
          .split('\n')
          .filter((line) => line.includes('request rejected by the HTTP parser'));
      await expect.poll(() => logged().map((line) => JSON.parse(line).status)).toEqual([431, 400]);
      const id = /x-request-id: (\S+)/i.exec(large.head)?.[1];
      expect(logged()[0]).toContain(id);
    },
  );
});
