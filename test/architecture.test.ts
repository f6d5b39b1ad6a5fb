import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setupTestServers, startNatsServer } from '@svc/test-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { newRowEvents } from '../services/platform/src/store/events/outbox.js';
import { eventsApp, postJson, type WalkApps, walkApps } from './support/walk-apps.js';
import { answer, type Send, walkBackground, walkFiles } from './support/walk-files.js';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const architecture = read('docs/ARCHITECTURE.md');

/** A walk's section of ARCHITECTURE.md, by the words of its heading. */
function section(heading: string): string {
  const start = architecture.indexOf(`## ${heading}`);
  if (start === -1) throw new Error(`no section "${heading}"`);
  const end = architecture.indexOf('\n## ', start + 1);
  return architecture.slice(start, end === -1 ? undefined : end);
}

/** The files a walk's numbered steps name, each step's first word, as paths from the repository root. */
const stepsOf = (walk: string) => [...walk.matchAll(/^\d+\. `([\w./-]+\.ts)`/gm)].map((m) => m[1]!);

/**
 * The walk under `heading` names, one step each, exactly the files that ran
 * while `send`'s request was served (traced by walkFiles). On a failure the
 * message holds the traced list, ready to paste. Resolves to the answer's body.
 */
async function expectWalk(
  app: keyof Omit<WalkApps, 'close'>,
  heading: string,
  send: Send,
  warmUp?: Send,
) {
  const walk = await walkFiles(apps[app], send, warmUp);
  // Every walk is of a request that succeeds: a failure's trace would be another walk.
  expect(walk.status, walk.body).toBe(200);
  // A missing section counts as an empty walk, so the failure still shows what ran.
  const documented = architecture.includes(`## ${heading}`) ? stepsOf(section(heading)) : [];
  const traced = walk.files.map((file, i) => `${i + 1}. \`${file}\`:`).join('\n');
  expect(documented, `"${heading}" ran these files, in this order:\n${traced}\n`).toEqual(
    walk.files,
  );
  return JSON.parse(walk.body);
}

const tracked = (dir: string) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', dir], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path.endsWith('.ts') && existsSync(join(root, path)));

let apps: WalkApps;
beforeAll(async () => {
  const stopServers = await setupTestServers();
  apps = await walkApps();
  return async () => {
    await apps.close();
    await stopServers();
  };
}, 120_000);

const ok = { code: 200 };
type Created = { data: { id: number } };

/** A merchant and one of its services, made through the API; the service's id. */
async function serviceToOrder(): Promise<number> {
  const add = (path: string, body: object) =>
    answer<Created>(apps.platform, (base) => postJson(`${base}${path}`, body));
  const merchant = await add('/api/merchant/add', {
    name: '张三家政',
    address: '北京市朝阳区1号',
    phone: '13800138000',
  });
  const service = await add('/api/service/add', {
    name: '日常保洁',
    price: 150,
    category: '保洁',
    image_url: 'https://img.example/clean.png',
    stock: 100,
    merchant_id: merchant.body.data.id,
  });
  return service.body.data.id;
}

const order = (serviceId: number) => ({
  user_name: '李四',
  user_phone: '13912345678',
  service_id: serviceId,
});

describe('docs/ARCHITECTURE.md walks, traced from the code', () => {
  it('order create without a key', async () => {
    const serviceId = await serviceToOrder();
    const create: Send = (base) => postJson(`${base}/api/order/create`, order(serviceId));
    const body = await expectWalk('platform', 'Walk: order create without a key', create);
    expect(body).toMatchObject({ ...ok, data: { id: expect.any(Number) } });
  });

  it('order create with an Idempotency-Key', async () => {
    const serviceId = await serviceToOrder();
    const create =
      (key: string): Send =>
      (base) =>
        postJson(`${base}/api/order/create`, order(serviceId), { 'Idempotency-Key': key });
    const heading = 'Walk: order create with an Idempotency-Key';
    const [key, warmUpKey] = [`walk-${Date.now()}`, `walk-warm-up-${Date.now()}`];
    const body = await expectWalk('platform', heading, create(key), create(warmUpKey));
    expect(body).toMatchObject({ ...ok, data: { id: expect.any(Number) } });
  });

  it('order list with a cursor', async () => {
    const serviceId = await serviceToOrder();
    for (let i = 0; i < 3; i++) {
      await answer(apps.platform, (base) => postJson(`${base}/api/order/create`, order(serviceId)));
    }
    const first = await answer(apps.platform, (base) => fetch(`${base}/api/order/list?pageSize=1`));
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toMatch(/^[\w-]+$/);
    const next: Send = (base) => fetch(`${base}/api/order/list?pageSize=1&cursor=${cursor}`);
    // Another list, so the walked one is read from its rows, not kept.
    const warmUp: Send = (base) => fetch(`${base}/api/order/list?pageSize=2`);
    const body = await expectWalk('platform', 'Walk: order list with a cursor', next, warmUp);
    expect(body).toMatchObject({ ...ok, data: [{ service_id: serviceId }] });

    const etag = (await answer(apps.platform, next)).headers.get('etag') as string;
    const unchanged: Send = (base) =>
      fetch(`${base}/api/order/list?pageSize=1&cursor=${cursor}`, {
        headers: { 'If-None-Match': etag },
      });
    const kept = await walkFiles(apps.platform, unchanged);
    expect(kept.status, `${etag} ${kept.body}`).toBe(304);
    const documented = stepsOf(section('Walk: the same list, unchanged, to a client that has it'));
    const traced = kept.files.map((file, i) => `${i + 1}. \`${file}\`:`).join('\n');
    expect(documented, `the 304 ran these files, in this order:\n${traced}\n`).toEqual(kept.files);
  });

  it('order complete', async () => {
    const serviceId = await serviceToOrder();
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const created = await answer<Created>(apps.platform, (base) =>
        postJson(`${base}/api/order/create`, order(serviceId)),
      );
      ids.push(created.body.data.id);
    }
    const complete =
      (id: number): Send =>
      (base) =>
        fetch(`${base}/api/order/complete/${id}`, { method: 'PUT' });
    const [id, warmUpId] = ids as [number, number];
    const body = await expectWalk(
      'platform',
      'Walk: order complete',
      complete(id),
      complete(warmUpId),
    );
    expect(body).toEqual({ code: 200, msg: '订单已完成!' });
  });

  it('auth login', async () => {
    const credentials = { username: `walk_${Date.now()}`, password: 'walk-password-1' };
    await answer(apps.auth, (base) => postJson(`${base}/api/user/register`, credentials));
    const first = await answer<{ data: { deviceToken: string } }>(apps.auth, (base) =>
      postJson(`${base}/api/user/login`, credentials),
    );
    const device = { 'X-Device-Token': first.body.data.deviceToken };
    const login: Send = (base) => postJson(`${base}/api/user/login`, credentials, device);
    const body = await expectWalk('auth', 'Walk: auth login', login);
    expect(body).toMatchObject({ ...ok, message: '登录成功', data: { token: expect.any(String) } });
  });
});

/**
 * The walk under `heading` names exactly `files`, as walkBackground traced
 * them. Background tasks take their turns in no fixed order, so the walk
 * lists the files in the order the event goes through them, and only the
 * set is compared.
 */
function expectBackgroundWalk(heading: string, files: string[]) {
  const documented = architecture.includes(`## ${heading}`) ? stepsOf(section(heading)) : [];
  const traced = files.map((file, i) => `${i + 1}. \`${file}\`:`).join('\n');
  expect([...documented].sort(), `"${heading}" ran these files:\n${traced}\n`).toEqual(
    [...files].sort(),
  );
}

/** An order and its order.created event, committed as a create commits them, by raw SQL. */
const ORDER_COMMIT = (serviceId: number, name: string) =>
  [
    'START TRANSACTION',
    `INSERT INTO orders (service_id, user_name, user_phone) VALUES (${serviceId}, '${name}', '1')`,
    ...newRowEvents('order.created', 1).map(({ sql }) => sql),
    'COMMIT',
  ].join(';\n');

async function aService(sql: (text: string) => Promise<unknown>): Promise<number> {
  await sql("INSERT INTO merchants (name, address, phone) VALUES ('m', 'a', '1')");
  const [row] = (await sql(
    "INSERT INTO services (merchant_id, name, price, category, stock) SELECT MAX(id), 's', 1, 'c', 1 FROM merchants RETURNING id",
  )) as { id: number }[];
  return row!.id;
}

/**
 * The files that run from an order's commit until `arrived` sees it where
 * the walk ends: a warm-up order first, then the walked one.
 */
async function walkCommit(
  sql: (text: string) => Promise<unknown>,
  arrived: (name: string) => Promise<void>,
): Promise<string[]> {
  const serviceId = await aService(sql);
  const commits = ['warm-up', 'walked'].map((name) => ORDER_COMMIT(serviceId, name));
  return walkBackground(
    async () => {
      await sql(commits[1]!);
      await arrived('walked');
    },
    async () => {
      await sql(commits[0]!);
      await arrived('warm-up');
    },
  );
}

/**
 * Resolves once the instance has counted every order.created event written
 * so far as published: the publish step's last file (feed/event-outbox.ts)
 * runs after the commit that makes the event readable, so a reader can meet
 * the event before it.
 */
async function untilCounted(events: Awaited<ReturnType<typeof eventsApp>>): Promise<void> {
  for (;;) {
    const [row] = (await events.sql(
      "SELECT COUNT(*) AS n FROM events WHERE type = 'order.created'",
    )) as { n: number }[];
    if (events.ordersPublished() >= Number(row?.n)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("docs/ARCHITECTURE.md walks of an order's event, traced from the code", () => {
  it('from its commit to a stream reader', async () => {
    const events = await eventsApp({ deliver: false });
    const stream = await fetch(`${events.base}/api/events/stream`);
    const reader = stream.body!.getReader();
    let text = '';
    const seen = async (name: string) => {
      while (!text.includes(`"user_name":"${name}"`)) {
        const { value } = await reader.read();
        text += new TextDecoder().decode(value);
      }
      await untilCounted(events);
    };
    try {
      const files = await walkCommit(events.sql, seen);
      expectBackgroundWalk("Walk: an order's event to a stream reader", files);
    } finally {
      await reader.cancel();
      await events.close();
    }
  });

  it('from its commit to a webhook delivery', async () => {
    const events = await eventsApp({ deliver: true });
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      req.on('data', (chunk) => received.push(String(chunk)));
      req.on('end', () => res.end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const delivered = async (name: string) => {
      for (;;) {
        const [row] = (await events.sql(
          "SELECT COUNT(*) AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id JOIN orders o ON o.id = e.row_id WHERE d.status = 'delivered' AND o.user_name = ?",
          [name],
        )) as { n: number }[];
        if (Number(row?.n) > 0 && received.some((body) => body.includes(name))) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    try {
      await events.sql(
        "INSERT INTO webhooks (url, secret) VALUES (?, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')",
        [url],
      );
      const files = await walkCommit(events.sql, delivered);
      expectBackgroundWalk("Walk: an order's event to a webhook delivery", files);
    } finally {
      receiver.close();
      await events.close();
    }
  });
});

describe("docs/ARCHITECTURE.md walk of an order's event to JetStream, traced from the code", () => {
  it('from its commit to the stream PLATFORM_EVENTS', async () => {
    const nats = await startNatsServer();
    const events = await eventsApp({ deliver: false, relayTo: nats.url });
    const relayed = async (name: string) => {
      for (;;) {
        const [row] = (await events.sql(
          `SELECT COUNT(*) AS n FROM event_relays r JOIN events e ON e.id <= r.last_id
           JOIN orders o ON o.id = e.row_id WHERE o.user_name = ?`,
          [name],
        )) as { n: number }[];
        if (Number(row?.n) > 0) return untilCounted(events);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    try {
      const files = await walkCommit(events.sql, relayed);
      expectBackgroundWalk("Walk: an order's event to JetStream", files);
    } finally {
      await events.close();
      await nats.destroy();
    }
  });
});

describe('the code', () => {
  it('keeps the data layers free of HTTP: no import of http/ from store/, idempotency/ or a repository', () => {
    const dataFiles = [
      ...tracked('services/platform/src/store'),
      ...tracked('services/platform/src/idempotency'),
      ...tracked('services/platform/src').filter((file) => file.endsWith('.repository.ts')),
      ...tracked('services/auth/src').filter((file) => file.endsWith('.repository.ts')),
    ];
    expect(dataFiles.length).toBeGreaterThan(5);
    for (const file of dataFiles) {
      expect(read(file), file).not.toMatch(/from '(\.\.\/)+http\//);
      expect(read(file), file).not.toMatch(/AppError|res\.status|Retry-After/);
    }
    // The HTTP kit names the store's types, never its statements.
    for (const file of tracked('services/platform/src/http')) {
      expect(read(file), file).not.toMatch(/^import \{[^}]*\} from '(\.\.\/)+store\//m);
    }
  });

  it('keeps every product file under 200 lines and mysql2 internals in one adapter', () => {
    const product = [
      'packages/common/src',
      'packages/session-guard/src',
      'services/auth/src',
      'services/platform/src',
    ];
    for (const file of product.flatMap(tracked)) {
      expect(read(file).split('\n').length, file).toBeLessThanOrEqual(201);
    }
    const internals = product
      .flatMap(tracked)
      .filter((file) =>
        /_allConnections|_freeConnections|_connectionQueue|\.pool\.pool\b|pool\.pool\./.test(
          read(file),
        ),
      );
    expect(internals).toEqual(['packages/common/src/mysql-driver.ts']);
  });

  it('holds for the code: no state parked on res.locals, errors answered in http/errors.ts', () => {
    for (const file of [...tracked('services/platform/src'), ...tracked('services/auth/src')]) {
      expect(read(file), file).not.toContain('res.locals');
    }
    for (const service of ['auth', 'platform']) {
      const answering = tracked(`services/${service}/src`).filter((file) =>
        /ErrorRequestHandler/.test(read(file)),
      );
      expect(answering, service).toEqual([`services/${service}/src/http/errors.ts`]);
    }
  });

  it('keeps common free of either spec: no Chinese text and no envelope', () => {
    for (const file of tracked('packages/common/src')) {
      expect(read(file), file).not.toMatch(/\p{Script=Han}/u);
      expect(read(file), file).not.toMatch(/msgBody|Envelope\b|renderFailure/);
    }
  });
});
