import { createServer, type Server } from 'node:http';
import {
  createTestDatabase,
  freePort,
  mysqlVariables,
  parsePrometheusText,
  sampleValue,
} from '@svc/test-kit';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './support/service-process.js';

/*
 * A real browser (Debian's chromium, headless) on a page of another origin
 * that lists merchants, services and orders through the platform, as the admin
 * app does: its HTTP cache keeps each list with its ETag and asks again with
 * If-None-Match, and the platform's own metrics say it answered 304.
 */

const CATEGORY = '保洁';
const LISTS = [
  '/api/merchant/list',
  `/api/service/list?category=${encodeURIComponent(CATEGORY)}`,
  '/api/order/list?page=1&pageSize=20',
];

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>lists</title>
<pre id="lists"></pre>
<script>
  const api = new URLSearchParams(location.search).get('api');
  Promise.all(${JSON.stringify(LISTS)}.map(async (path) => {
    const res = await fetch(api + path);
    const body = await res.json();
    return { path, status: res.status, etag: res.headers.get('ETag'), names: body.data.map((row) => row.name ?? row.user_name) };
  })).then((lists) => {
    document.querySelector('#lists').textContent = JSON.stringify(lists);
  });
</script>`;

interface Listed {
  path: string;
  status: number;
  etag: string | null;
  names: string[];
}

let platform: ServiceProcess;
let pageServer: Server;
let pageUrl: string;
let browser: Browser;

beforeAll(async () => {
  platform = await startService('platform', mysqlVariables((await createTestDatabase()).settings));
  const port = await freePort();
  pageServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  await new Promise<void>((resolve) => pageServer.listen(port, '127.0.0.1', resolve));
  // Another origin than the platform's: every list is a CORS request.
  pageUrl = `http://localhost:${port}/?api=${encodeURIComponent(platform.url)}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
  await platform?.stop();
});

async function post(path: string, body: object): Promise<number> {
  const res = await fetch(platform.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { data: { id: number } }).data.id;
}

/** Each list route's answers by HTTP status, from the platform's /metrics. */
async function answered(status: string): Promise<number[]> {
  const samples = parsePrometheusText(await (await fetch(`${platform.url}/metrics`)).text());
  return LISTS.map((path) => {
    const route = path.split('?')[0] as string;
    return sampleValue(samples, 'http_requests_total', { method: 'GET', route, status }) ?? 0;
  });
}

describe('a browser loading lists through the platform', () => {
  it('is answered 304 on its second load, sees the same lists, and sees a change at once', async () => {
    const merchant = await post('/api/merchant/add', {
      name: '张三家政',
      address: '北京市朝阳区1号',
      phone: '13800138000',
    });
    const service = await post('/api/service/add', {
      merchant_id: merchant,
      name: '日常保洁',
      price: 150,
      category: CATEGORY,
    });
    await post('/api/order/create', { service_id: service, user_name: '李四', user_phone: '1' });

    const context = await browser.newContext();
    const page = await context.newPage();
    const load = async (): Promise<Listed[]> => {
      await page.goto(pageUrl);
      const text = await page.locator('#lists').filter({ hasText: /\S/ }).textContent();
      return JSON.parse(text as string) as Listed[];
    };

    const first = await load();
    expect(first.map((list) => list.names)).toEqual([['张三家政'], ['日常保洁'], ['李四']]);
    for (const list of first) {
      expect(list.status).toBe(200);
      expect(list.etag, `${list.path}: ETag readable by the script`).toMatch(/^"[\w-]{27}"$/);
    }
    expect(await answered('200')).toEqual([1, 1, 1]);
    expect(await answered('304')).toEqual([0, 0, 0]);

    const second = await load();
    expect(second).toEqual(first);
    expect(await answered('304')).toEqual([1, 1, 1]);
    expect(await answered('200')).toEqual([1, 1, 1]);

    await post('/api/merchant/add', {
      name: '李四维修',
      address: '上海市1号',
      phone: '13900000000',
    });
    const third = await load();
    expect(third[0]?.names).toEqual(['张三家政', '李四维修']);
    expect(third[0]?.etag).not.toBe(first[0]?.etag);
    expect(third.slice(1)).toEqual(first.slice(1));
    expect(await answered('200')).toEqual([2, 1, 1]);
    expect(await answered('304')).toEqual([1, 2, 2]);
    await context.close();
  });
});
