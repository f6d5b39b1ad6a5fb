import 'reflect-metadata';
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  HttpException,
  type INestApplication,
  Module,
  Req,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startRedisServer, type TestServer } from '@svc/test-kit';
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSession, createUserSessions } from '../src/index.js';
import { SessionGuard, SessionGuardModule } from '../src/nest.js';
import { IOREDIS_MAJORS } from './support/ioredis-majors.js';

/*
 * A real NestJS application, as the judge backend is one: one controller
 * guarded as a whole, another on one method. Decorators are applied as calls,
 * so this file needs no decorator compiler settings.
 */
type Handler = (req: { user?: unknown; token?: string }) => unknown;

function controller(
  name: string,
  path: string,
  routes: Record<string, Handler>,
  guardAll: boolean,
) {
  const Cls = class {} as unknown as { new (): object; prototype: Record<string, Handler> };
  // Nest tells controllers apart by class name.
  Object.defineProperty(Cls, 'name', { value: name });
  for (const [name, handler] of Object.entries(routes)) {
    // A function of its own per route: Nest keeps a route's metadata on its function.
    Cls.prototype[name] = (req) => handler(req);
    const descriptor = Object.getOwnPropertyDescriptor(Cls.prototype, name) as PropertyDescriptor;
    Get(name)(Cls.prototype, name, descriptor);
    Req()(Cls.prototype, name, 0);
    if (!guardAll && name === 'guarded') UseGuards(SessionGuard)(Cls.prototype, name, descriptor);
  }
  Controller(path)(Cls);
  if (guardAll) UseGuards(SessionGuard)(Cls);
  return Cls;
}

/** The host's own envelope: `{ code, message }`, as the judge backend renders errors. */
class EnvelopeFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost) {
    const status = exception.getStatus();
    host.switchToHttp().getResponse<Response>().status(status).json({
      code: status,
      message: exception.message,
    });
  }
}
Catch(HttpException)(EnvelopeFilter);

const whoami: Handler = (req) => ({ user: req.user, token: req.token });

describe.each(IOREDIS_MAJORS)('SessionGuard in a NestJS application, on %s', (_name, major) => {
  let server: TestServer;
  let redis: Redis;
  let app: INestApplication;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = major.redis(server.url);
    redis.on('error', () => {});
    const Questions = controller(
      'QuestionController',
      'api/testQuestion',
      { list: whoami, detail: whoami },
      true,
    );
    const Comments = controller(
      'CommentController',
      'api/comment',
      { guarded: whoami, open: () => 'open' },
      false,
    );
    class AppModule {}
    Module({
      imports: [SessionGuardModule.forRoot({ redis })],
      controllers: [Questions, Comments],
    })(AppModule);
    app = await NestFactory.create(AppModule, { logger: false });
    app.useGlobalFilters(new EnvelopeFilter());
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await server?.destroy();
  });

  it('lets a live token through on every method of a guarded controller, with request.user', async () => {
    const token = await createTestSession(redis, { username: 'nest_user' });
    for (const path of ['/api/testQuestion/list', '/api/testQuestion/detail']) {
      for (const headers of [{ authorization: `Bearer ${token}` }, { token }]) {
        const res = await request(app.getHttpServer()).get(path).set(headers);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ user: { username: 'nest_user' }, token });
      }
    }
  });

  it("answers the spec's two 401s through the host's exception filter", async () => {
    const none = await request(app.getHttpServer()).get('/api/testQuestion/list');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ code: 401, message: '未携带Token,请先登录' });
    const dead = await request(app.getHttpServer())
      .get('/api/comment/guarded')
      .set('token', 'f'.repeat(64));
    expect(dead.status).toBe(401);
    expect(dead.body).toEqual({ code: 401, message: 'Token无效或已过期,请重新登录' });
  });

  it('refuses at once a session ended by id, by "end the others" or by "end all"', async () => {
    const sessions = createUserSessions({ redis });
    const username = 'nest_ender';
    const [kept, byId, other] = (await Promise.all(
      ['kept', 'by-id', 'other'].map((userAgent) =>
        createTestSession(redis, { username, userAgent }),
      ),
    )) as [string, string, string];
    const answers = () =>
      Promise.all(
        [kept, byId, other].map(
          async (token) =>
            (await request(app.getHttpServer()).get('/api/testQuestion/list').set('token', token))
              .body,
        ),
      );
    const live = (token: string) => ({ user: { username }, token });
    const dead = { code: 401, message: 'Token无效或已过期,请重新登录' };

    const target = (await sessions.list(username, kept)).find((s) => s.userAgent === 'by-id');
    expect(await sessions.end(username, kept, target?.id as string)).toBe(true);
    expect(await answers()).toEqual([live(kept), dead, live(other)]);
    expect(await sessions.endOthers(username, kept)).toBe(1);
    expect(await answers()).toEqual([live(kept), dead, dead]);
    expect(await sessions.endAll(username, kept)).toBe(1);
    expect(await answers()).toEqual([dead, dead, dead]);
  });

  it('guards only the method it is put on', async () => {
    const open = await request(app.getHttpServer()).get('/api/comment/open');
    expect(open.status).toBe(200);
    expect(open.text).toBe('open');
    expect((await request(app.getHttpServer()).get('/api/comment/guarded')).status).toBe(401);
  });

  it('answers 503 through the filter when Redis fails, never 401', async () => {
    const token = await createTestSession(redis, { username: 'nest_user' });
    await server.stop();
    try {
      const res = await request(app.getHttpServer())
        .get('/api/testQuestion/list')
        .set('authorization', `Bearer ${token}`);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 503, message: '服务暂不可用,请稍后重试' });
    } finally {
      await server.start();
    }
  });
});
