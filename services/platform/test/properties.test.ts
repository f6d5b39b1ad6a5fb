import { parse as parseQuery } from 'node:querystring';
import type { RowDataPacket } from '@svc/common';
import {
  type RawClient,
  type RawRequest,
  rawClient,
  recordedResponses,
  undocumentedResponses,
} from '@svc/test-kit';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notFoundBody } from '../src/http/docs/reply-schemas.js';
import { platformOperations } from '../src/openapi.js';
import {
  encodeBody,
  extraHeaders,
  type FieldsBody,
  fieldsBody,
  INT_MAX,
  idRef,
  isClean,
  type OtherBody,
  optionalText,
  otherBody,
  padded,
  pathParam,
  price,
  queryString,
  requiredText,
  stock,
  type Transport,
  transport,
  wellFormed,
  wildJson,
} from './support/arbitraries.js';
import {
  addMerchant,
  addOrder,
  addService,
  createTestApp,
  execute,
  rowOf,
  type TestApp,
} from './support/test-app.js';

/**
 * Every route of the spec, fed generated requests: whatever arrives, the
 * answer is HTTP 200 JSON in the route's documented envelope, never a code 500
 * (the database is up; the one 500 the spec gives is a reference to no row),
 * the app keeps answering, and the database holds exactly what the accepted
 * requests wrote. On failure fast-check prints the seed and path; rerun one
 * with FC_SEED=<seed> FC_PATH=<path>, and FC_RUNS sets the number of runs.
 */

const RUNS = Number(process.env.FC_RUNS ?? 200);
const LIST_RUNS = Math.ceil((RUNS * 3) / 4);
const replay = process.env.FC_SEED
  ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH }
  : {};
const PROPERTY_TIMEOUT = 120_000;

let t: TestApp;
let client: RawClient;
let merchantIds: number[];
let serviceIds: number[];
beforeAll(async () => {
  t = await createTestApp();
  client = await rawClient(t.app);
  merchantIds = [
    await addMerchant(t.app),
    await addMerchant(t.app, { name: '李四维修' }),
    await addMerchant(t.app),
  ];
  await request(t.app).put(`/api/merchant/approve/${merchantIds[1]}`);
  serviceIds = [
    await addService(t.app, merchantIds[0]!, { category: '保洁' }),
    await addService(t.app, merchantIds[1]!, { category: '维修' }),
    await addService(t.app, merchantIds[2]!, { category: 'ab' }),
  ];
  await request(t.app).put(`/api/service/publish/${serviceIds[1]}`);
  for (const [i, status] of [0, 1, 2].entries()) {
    const id = await addOrder(t.app, serviceIds[i]!);
    await execute(t.pool, 'UPDATE orders SET status = ? WHERE id = ?', [status, id]);
  }
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

type Table = 'merchants' | 'services' | 'orders';
type Body = Record<string, unknown>;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Sends one request and checks what every answer must be: HTTP 200, JSON, the
 * one answer the recorder saw from this route, in its documented schema, with
 * the request id; no code 500 but the spec's own for a reference to no row;
 * then that the app still answers.
 */
async function exchange(route: string, req: RawRequest, ref?: Reference) {
  const before = recordedResponses().length;
  const res = await client.send(req);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  const body = JSON.parse(res.text) as Body;
  const recorded = recordedResponses().slice(before);
  const answered = recorded.map(({ method, route, status, body }) => ({
    method,
    route,
    status,
    body,
  }));
  expect(answered).toEqual([{ method: req.method, route, status: 200, body }]);
  expect(undocumentedResponses(recorded, platformOperations, notFoundBody)).toEqual([]);
  if (body.code === 500 && ref) await expectMissingReference(body, ref);
  else expect(body.code).not.toBe(500);

  const sentId = (req.headers['x-request-id'] as string | undefined)?.replace(
    /^[\t ]+|[\t ]+$/g,
    '',
  );
  const id = res.headers['x-request-id'];
  if (sentId !== undefined && REQUEST_ID.test(sentId)) expect(id).toBe(sentId);
  else expect(id).toMatch(UUID);

  const health = await client.send({ method: 'GET', path: '/healthz', headers: {} });
  expect(health.status).toBe(200);
  return { body, headers: res.headers };
}

/** The spec's code 500 of a create: its text names an id that no row has. */
async function expectMissingReference(body: Body, ref: Reference) {
  const missing = /^(merchant|service) (\d+) does not exist$/.exec(String(body[ref.textKey]));
  expect(missing?.[1]).toBe(ref.noun);
  const [rows] = await t.pool.query<RowDataPacket[]>('SELECT id FROM ?? WHERE id = ?', [
    ref.table,
    Number(missing?.[2]),
  ]);
  expect(rows).toEqual([]);
}

function bodyBytes(body: FieldsBody | OtherBody | undefined): Buffer | undefined {
  if (body === undefined || body.kind === 'none') return undefined;
  if (body.kind === 'bytes') return Buffer.from(body.bytes);
  if (body.kind === 'fields' && body.padded) return Buffer.from(padded(body.text));
  return Buffer.from(body.text);
}

type Sent = Omit<RawRequest, 'method' | 'path'>;

/** The headers, and the body with its transport headers when there is one. */
function withBody(
  headers: Record<string, string>,
  side?: { body: FieldsBody | OtherBody; how: Transport } | null,
): Sent {
  if (!side) return { headers };
  const encoded = encodeBody(side.how, bodyBytes(side.body));
  return {
    headers: { ...headers, ...encoded.headers },
    body: encoded.body,
    chunked: side.how.chunked,
  };
}

/** The reference of a create, and where its spec 500 puts the text. */
interface Reference {
  table: Table;
  noun: 'merchant' | 'service';
  textKey: string;
}

const merchantRef: Reference = { table: 'merchants', noun: 'merchant', textKey: 'data' };
const serviceRef: Reference = { table: 'services', noun: 'service', textKey: 'error' };

const CREATES = [
  {
    path: '/api/merchant/add',
    table: 'merchants' as Table,
    ref: undefined,
    rules: () => ({ name: requiredText(100), address: requiredText(200), phone: requiredText(20) }),
  },
  {
    path: '/api/service/add',
    table: 'services' as Table,
    ref: merchantRef,
    rules: () => ({
      merchant_id: idRef(merchantIds),
      name: requiredText(100),
      price,
      category: requiredText(50),
      image_url: optionalText(200),
      stock,
    }),
  },
  ...['/api/order/create', '/api/order/add', '/order/add'].map((path) => ({
    path,
    table: 'orders' as Table,
    ref: serviceRef,
    rules: () => ({
      service_id: idRef(serviceIds),
      user_name: requiredText(50),
      user_phone: requiredText(20),
    }),
  })),
];

/** The codes a create may answer, from how the body was built and how it travels. */
function createCodes(body: FieldsBody | OtherBody, how: Transport, hasRef: boolean): number[] {
  const codes = (() => {
    if (body.kind === 'none') return [400, 415];
    if (!isClean(how)) return [400, 413, 415];
    if (body.kind === 'not-object') return [400];
    if (body.kind !== 'fields') return [200, 400, 500];
    if (body.padded) return [413];
    const verdicts = Object.values(body.fields).map((field) => field.verdict);
    if (verdicts.includes('invalid')) return [400];
    if (verdicts.includes('either')) return [200, 400, 500];
    if (verdicts.includes('missing')) return [500];
    return [200];
  })();
  return hasRef ? codes : codes.filter((code) => code !== 500);
}

const text = (value: unknown) => wellFormed(String(value).trim());
/** As an INT column holds it: -0 (JSON `-0.0`) is 0. */
const number = (value: unknown) => Number(typeof value === 'string' ? value.trim() : value) + 0;
const blank = (value: unknown) => value === undefined || value === null || value === '';

/** The row a create with this body must have written. */
function storedRow(table: Table, input: Record<string, unknown>) {
  if (table === 'merchants') {
    return { name: text(input.name), address: text(input.address), phone: text(input.phone) };
  }
  if (table === 'services') {
    const url = typeof input.image_url === 'string' ? text(input.image_url) : '';
    return {
      merchant_id: number(input.merchant_id),
      name: text(input.name),
      price: number(input.price).toFixed(2),
      category: text(input.category),
      image_url: url === '' ? null : url,
      stock: blank(input.stock) ? 0 : number(input.stock),
    };
  }
  return {
    service_id: number(input.service_id),
    user_name: text(input.user_name),
    user_phone: text(input.user_phone),
  };
}

describe.each(CREATES)('POST $path with generated requests', ({ path, table, ref, rules }) => {
  it(
    'answers in its envelope and writes one row per code 200, holding the input',
    async () => {
      const start = await t.counts();
      const seen = new Map<number, number>();
      const requests = fc.record({
        body: fc.oneof({ weight: 4, arbitrary: fieldsBody(rules()) }, otherBody),
        how: transport,
        headers: extraHeaders,
        query: queryString({ t: ['1', ''] }),
        slash: fc.oneof({ weight: 9, arbitrary: fc.constant('') }, fc.constant('/')),
      });
      await fc.assert(
        fc.asyncProperty(requests, async ({ body, how, headers, query, slash }) => {
          const before = await t.counts();
          const sent = withBody(headers, { body, how });
          const res = await exchange(
            path,
            { method: 'POST', path: `${path}${slash}${query}`, ...sent },
            ref,
          );
          const code = res.body.code as number;
          seen.set(code, (seen.get(code) ?? 0) + 1);
          expect(createCodes(body, how, ref !== undefined)).toContain(code);

          const written = code === 200 ? 1 : 0;
          expect(await t.counts()).toEqual({ ...before, [table]: before[table] + written });
          if (code !== 200) return;
          const id = (res.body.data as { id: number }).id;
          const row = await rowOf(t.pool, table, id);
          expect(row.status).toBe(0);
          if (body.kind === 'fields') {
            const stored = storedRow(table, JSON.parse(body.text));
            const actual = Object.fromEntries(Object.keys(stored).map((key) => [key, row[key]]));
            if ('price' in actual) actual.price = Number(actual.price).toFixed(2);
            expect(actual).toEqual(stored);
          }
        }),
        { numRuns: RUNS, ...replay },
      );
      const accepted = seen.get(200) ?? 0;
      expect(await t.counts()).toEqual({ ...start, [table]: start[table] + accepted });
      // The generators reach both sides: rows written, and requests refused.
      expect(accepted).toBeGreaterThan(0);
      expect(seen.get(400)).toBeGreaterThan(0);
    },
    PROPERTY_TIMEOUT,
  );
});

/** A body sent where the route reads none: with it the answer may be the body's 400, 413 or 415. */
const sideBody = fc.record({
  body: fc.oneof(
    otherBody,
    wildJson.map((json) => ({ kind: 'text' as const, text: json })),
  ),
  how: transport,
});

async function statuses(table: Table): Promise<Map<number, number>> {
  const [rows] = await t.pool.query<RowDataPacket[]>('SELECT id, status FROM ?? ORDER BY id', [
    table,
  ]);
  return new Map(rows.map((row) => [row.id as number, row.status as number]));
}

const SHELVES = [
  {
    path: '/api/merchant/approve/:id',
    table: 'merchants' as Table,
    status: 1,
    ids: () => merchantIds,
    missing: '商家不存在',
    done: '商家审核通过!',
  },
  {
    path: '/api/service/publish/:id',
    table: 'services' as Table,
    status: 1,
    ids: () => serviceIds,
    missing: '服务不存在',
    done: '服务上架成功!',
  },
  {
    path: '/api/service/unpublish/:id',
    table: 'services' as Table,
    status: 0,
    ids: () => serviceIds,
    missing: '服务不存在',
    done: '服务下架成功!',
  },
];

describe.each(SHELVES)('PUT $path with generated requests', (route) => {
  it(
    'changes the status of the row it names, and nothing when it refuses',
    async () => {
      const start = await t.counts();
      const seen = new Map<number, number>();
      const requests = fc.record({
        id: pathParam(route.ids()),
        side: fc.option(sideBody, { freq: 3 }),
        headers: extraHeaders,
        query: queryString({ t: ['1', ''], id: ['1'] }),
        slash: fc.oneof({ weight: 9, arbitrary: fc.constant('') }, fc.constant('/')),
      });
      await fc.assert(
        fc.asyncProperty(requests, async ({ id, side, headers, query, slash }) => {
          const before = await statuses(route.table);
          const counts = await t.counts();
          const sent = withBody(headers, side);
          const path = `${route.path.replace(':id', id.wire)}${slash}${query}`;
          const res = await exchange(route.path, { method: 'PUT', path, ...sent });
          const code = res.body.code as number;
          seen.set(code, (seen.get(code) ?? 0) + 1);

          const rowId = /^\d+$/.test(id.param) ? Number(id.param) : 0;
          const named = rowId >= 1 && rowId <= INT_MAX;
          const expected = !named
            ? { code: 400, msg: '服务器出错', error: 'id must be a positive integer' }
            : before.has(rowId)
              ? { code: 200, msg: route.done }
              : { code: 404, msg: route.missing };
          if (side) expect([expected.code, 400, 413, 415]).toContain(code);
          else expect(res.body).toEqual(expected);
          if (code === 200 || code === 404) expect(res.body).toEqual(expected);

          const after = new Map(before);
          if (code === 200) after.set(rowId, route.status);
          expect(await statuses(route.table)).toEqual(after);
          expect(await t.counts()).toEqual(counts);
        }),
        { numRuns: RUNS, ...replay },
      );
      expect(await t.counts()).toEqual(start);
      expect(seen.get(200)).toBeGreaterThan(0);
      expect(seen.get(400)).toBeGreaterThan(0);
      expect(seen.get(404)).toBeGreaterThan(0);
    },
    PROPERTY_TIMEOUT,
  );
});

const PAGE_VALUES = [
  '',
  '1',
  '2',
  '3',
  '20',
  '100',
  '0',
  '101',
  ' 5',
  '5 ',
  '-1',
  '1.0',
  '1e2',
  '00002',
  '2147483647',
  '2147483648',
];
const PAGES = { page: PAGE_VALUES, pageSize: PAGE_VALUES };
const CATEGORIES = ['', 'all', 'ALL', '保洁', '维修', 'ab', 'ab ', 'ab  ', ' ab', 'AB', '保洁\t'];
const STATUSES = ['', '0', '1', '2', '3', ' 1', '1 ', '01', '-0', '1.0', 'all'];

type Query = ReturnType<typeof parseQuery>;

/** page and pageSize: absent or empty, or digits (around whitespace) in range. */
function pageRule(value: Query[string], max: number) {
  if (value === undefined || value === '') return true;
  return (
    typeof value === 'string' &&
    /^\d+$/.test(value.trim()) &&
    Number(value.trim()) >= 1 &&
    Number(value.trim()) <= max
  );
}

interface ListRow {
  id: number;
  category?: string;
  status?: number;
  create_time?: Date;
}

const byId = (a: ListRow, b: ListRow) => a.id - b.id;
const newestFirst = (a: ListRow, b: ListRow) =>
  b.create_time!.getTime() - a.create_time!.getTime() || b.id - a.id;

/** Each list as the spec orders it, with its own filter: the model the answers must follow. */
const LISTS = [
  {
    path: '/api/merchant/list',
    params: PAGES,
    sql: 'SELECT id FROM merchants',
    order: byId,
    filter: () => ({ bad: [] as string[], keep: (_row: ListRow) => true }),
  },
  {
    path: '/api/service/list',
    params: { ...PAGES, category: CATEGORIES, t: ['1732262400000', ''] },
    sql: 'SELECT id, category FROM services',
    order: byId,
    filter: (query: Query) => {
      const category = query.category;
      if (category === undefined || category === '' || category === 'all') {
        return { bad: [], keep: () => true };
      }
      if (typeof category !== 'string') return { bad: ['category'], keep: () => false };
      return { bad: [], keep: (row: ListRow) => row.category === category };
    },
  },
  ...['/api/order/list', '/order/list'].map((path) => ({
    path,
    params: { ...PAGES, status: STATUSES },
    sql: 'SELECT id, status, create_time FROM orders',
    order: newestFirst,
    filter: (query: Query) => {
      const status = query.status;
      if (status === undefined || status === '') return { bad: [], keep: () => true };
      if (typeof status === 'string' && ['0', '1', '2'].includes(status)) {
        return { bad: [], keep: (row: ListRow) => row.status === Number(status) };
      }
      return { bad: ['status'], keep: () => false };
    },
  })),
];

describe.each(LISTS)('GET $path with generated requests', (list) => {
  it(
    'answers the filtered, ordered rows (or page) the database holds, or names each bad parameter',
    async () => {
      const start = await t.counts();
      const seen = new Map<number, number>();
      const requests = fc.record({
        query: queryString(list.params),
        side: fc.option(sideBody, { freq: 4 }),
        headers: extraHeaders,
      });
      await fc.assert(
        fc.asyncProperty(requests, async ({ query, side, headers }) => {
          const sent = withBody(headers, side);
          const res = await exchange(list.path, {
            method: 'GET',
            path: `${list.path}${query}`,
            ...sent,
          });
          const code = res.body.code as number;
          seen.set(code, (seen.get(code) ?? 0) + 1);

          const parsed = parseQuery(query.slice(1));
          const filter = list.filter(parsed);
          const bad = [
            ...(pageRule(parsed.page, INT_MAX) ? [] : ['page']),
            ...(pageRule(parsed.pageSize, 100) ? [] : ['pageSize']),
            ...filter.bad,
          ];
          const expected = bad.length === 0 ? 200 : 400;
          if (side) expect([expected, 400, 413, 415]).toContain(code);
          else expect(code).toBe(expected);
          if (code === 400 && !side) {
            for (const name of bad) expect(res.body.error).toContain(`${name} must`);
          }
          if (code !== 200) return;

          const [rows] = await t.pool.query<RowDataPacket[]>(list.sql);
          const ids = (rows as ListRow[])
            .filter(filter.keep)
            .sort(list.order)
            .map((row) => row.id);
          const paged = !(blank(parsed.page) && blank(parsed.pageSize));
          const size = blank(parsed.pageSize) ? 20 : Number(String(parsed.pageSize).trim());
          const offset = ((blank(parsed.page) ? 1 : Number(String(parsed.page).trim())) - 1) * size;
          const data = res.body.data as { id: number }[];
          expect(data.map((row) => row.id)).toEqual(paged ? ids.slice(offset, offset + size) : ids);
          expect(res.headers['x-total-count']).toBe(paged ? String(ids.length) : undefined);
        }),
        { numRuns: LIST_RUNS, ...replay },
      );
      expect(await t.counts()).toEqual(start);
      expect(seen.get(200)).toBeGreaterThan(0);
      expect(seen.get(400)).toBeGreaterThan(0);
    },
    PROPERTY_TIMEOUT,
  );
});
