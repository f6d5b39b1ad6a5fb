import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type TableRoute, tableRouter } from '../src/route-table.js';

const answer =
  (name: string): RequestHandler =>
  (req, res) => {
    res.json({ name, seen: res.locals.seen ?? null, id: req.params.id ?? null });
  };
const mark: RequestHandler = (_req, res, next) => {
  res.locals.seen = 'middleware';
  next();
};
const wrongMethod =
  (allow: string): RequestHandler =>
  (_req, res) => {
    res.set('Allow', allow).status(405).json({ allow });
  };

function buildApp(routes: TableRoute[]) {
  const app = express();
  app.use(tableRouter(routes, wrongMethod));
  app.use((_req, res) => {
    res.status(404).json({ unknown: true });
  });
  return app;
}

describe('tableRouter', () => {
  const app = buildApp([
    { method: 'post', path: '/things', handlers: [mark, answer('add')] },
    { method: 'get', path: '/things', handlers: [answer('list')] },
    { method: 'delete', path: '/things/:id', handlers: [answer('remove')] },
  ]);

  it('runs each entry: its middleware in order, then its handler', async () => {
    expect((await request(app).post('/things')).body).toEqual({
      name: 'add',
      seen: 'middleware',
      id: null,
    });
    expect((await request(app).get('/things')).body).toEqual({
      name: 'list',
      seen: null,
      id: null,
    });
    expect((await request(app).delete('/things/7')).body).toEqual({
      name: 'remove',
      seen: null,
      id: '7',
    });
  });

  it('answers HEAD as GET, and another method of a known path with wrongMethod(Allow)', async () => {
    expect((await request(app).head('/things')).status).toBe(200);
    const put = await request(app).put('/things');
    expect([put.status, put.headers.allow, put.body]).toEqual([
      405,
      'GET, HEAD, POST',
      { allow: 'GET, HEAD, POST' },
    ]);
    const get = await request(app).get('/things/7');
    expect([get.status, get.headers.allow]).toEqual([405, 'DELETE']);
  });

  it('leaves unknown paths to the app', async () => {
    const res = await request(app).get('/nothing');
    expect([res.status, res.body]).toEqual([404, { unknown: true }]);
  });

  it('registers each path once, in the order of its first entry', () => {
    const router = tableRouter(
      [
        { method: 'get', path: '/b', handlers: [answer('b')] },
        { method: 'get', path: '/a', handlers: [answer('a')] },
        { method: 'post', path: '/b', handlers: [answer('b')] },
      ],
      wrongMethod,
    );
    const stack = router.stack as unknown as { route: { path: string } }[];
    expect(stack.map(({ route }) => route.path)).toEqual(['/b', '/a']);
  });
});
