import { createHash } from 'node:crypto';
import type { SessionInfo, TokenScheme } from '@svc/session-guard';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { expect } from 'vitest';

/** What GET /api/user/sessions lists for one session: what the guard package lists. */
export type ListedSession = SessionInfo;

export const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;
export const NO_SESSION = { code: 404, message: '会话不存在' };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The guard's layout, written out again: a session, its metadata, the user's index. */
export function layoutOf(scheme: TokenScheme) {
  const session = (token: string) => (scheme === 'md5' ? token : `session:${sha256(token)}`);
  return {
    session,
    metadata: (token: string) => `{${session(token)}}:meta`,
    index: (username: string) => `session:user:${username.toLowerCase()}`,
    member: sha256,
  };
}

/** A login from a client that sends this User-Agent (none when undefined); its token and when it ran. */
export async function loginAs(
  app: Express,
  account: { username: string; password: string },
  userAgent?: string,
): Promise<{ token: string; before: number; after: number }> {
  const before = Date.now();
  const call = request(app).post('/api/user/login');
  if (userAgent !== undefined) call.set('User-Agent', userAgent);
  const res = await call.send({ username: account.username, password: account.password });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { token: res.body.data.token as string, before, after: Date.now() };
}

/** The sessions the token's owner sees, after checking the whole answer's shape. */
export async function listSessions(app: Express, token: string): Promise<ListedSession[]> {
  const res = await request(app).get('/api/user/sessions').set('Authorization', `Bearer ${token}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toEqual({ code: 200, message: '获取成功', data: expect.any(Array) });
  return res.body.data as ListedSession[];
}

/** Milliseconds since the epoch of an ISO 8601 UTC string, which it must be. */
export function instant(text: string): number {
  expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  return Date.parse(text);
}

/** Every key of the file's Redis with its remaining lifetime in ms (-1: none). */
export async function lifetimes(redis: Redis): Promise<Map<string, number>> {
  const keys = await redis.keys('*');
  const left = await Promise.all(keys.map((key) => redis.pttl(key)));
  return new Map(keys.map((key, i) => [key, left[i] as number]));
}
