import { type RawClient, rawClient } from '@svc/test-kit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anyToken,
  type BodyRecipe,
  body,
  type Carrier,
  carrier,
  exact,
  foreignToken,
  headerText,
  liveToken,
  newPassword,
  newUsername,
  oddJson,
  placed,
  ref,
  strayBody,
  text,
  wellFormedBody,
  whitespace,
} from './support/property-inputs.js';
import { type Judge, judges, namedFields } from './support/property-judges.js';
import {
  type Answer,
  envelopeOf,
  expectRedis,
  expectUsers,
  Model,
  received,
  type Snapshot,
} from './support/property-model.js';
import { suiteStores } from './support/suite-setup.js';
import { buildApp, INVALID_TOKEN, NO_TOKEN, SCHEMES } from './support/test-app.js';

/*
 * Property tests: generated bodies, headers and query strings against every
 * route, in both token schemes. Each answer is checked against a model of the
 * accounts and sessions (the answer, every Redis key, every users row), and
 * the response recorder checks it against the OpenAPI document. fast-check
 * prints the seed and the shrunk request of a failure.
 */

/** Sends one generated request and holds the answer and the stores to the model. */
async function exchange(
  model: Model,
  method: 'GET' | 'POST',
  route: string,
  request: { carrier: Carrier; body: BodyRecipe },
  judge: Judge,
): Promise<Answer> {
  const sent = model.resolve(method, route, request.carrier, request.body);
  const before = await model.snapshot();
  const answer = envelopeOf(await model.send(sent));
  const after = await model.snapshot();
  const verdict = judge(sent, before);
  const what = `${answer.status} ${JSON.stringify(answer.body)}`;
  expect(answer.status, what).toBe(verdict.status);
  expect(answer.body, what).toEqual({
    code: verdict.status,
    message: verdict.message ?? expect.any(String),
    data: verdict.data,
  });
  if (verdict.fields) expect(namedFields(answer.body.message), what).toEqual(verdict.fields);
  if (answer.status === 429) expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  await verdict.check?.(answer);
  expectRedis(before, after, verdict.redis?.(answer) ?? new Map());
  expectUsers(before, after, verdict.users);
  verdict.apply?.(answer);
  // The model and the stores agree on how many sessions and accounts there are.
  expect(sessionCount(model, after)).toBe(model.live.size);
  expect(after.users.size).toBe(model.accounts.length);
  await expectHealthy(model.client);
  const session = (answer.body.data as { loggedIn?: boolean } | undefined)?.loggedIn;
  seen.add(
    `${route} ${answer.status} ${answer.body.message}${session === undefined ? '' : ` loggedIn=${session}`}`,
  );
  return answer;
}

/** Session keys by their pattern: `session:<64 hex>` in random, a bare 32-hex key in md5. */
function sessionCount(model: Model, snapshot: Snapshot): number {
  const pattern = model.scheme === 'md5' ? /^[0-9a-f]{32}$/ : /^session:[0-9a-f]{64}$/;
  return [...snapshot.keys.keys()].filter((key) => pattern.test(key)).length;
}

/** Route, status and message of every answer the properties got. */
const seen = new Set<string>();

// Generators that stopped reaching a route's answers would let its properties
// pass on nothing: each answer below must have come up (in either scheme).
afterAll(() => {
  const reached = (route: string, status: number, message = '') =>
    [...seen].some((entry) => entry.startsWith(`${route} ${status} ${message}`));
  const expected: [string, number, string?][] = [
    ['/api/user/register', 200],
    ['/api/user/register', 400],
    ['/api/user/register', 409],
    ['/api/user/login', 200],
    ['/api/user/login', 400],
    ['/api/user/login', 401],
    ['/api/user/login', 429],
    ['/api/user/status', 200, '获取成功 loggedIn=true'],
    ['/api/user/status', 200, '获取成功 loggedIn=false'],
    ['/api/user/me', 200],
    ['/api/user/me', 401, NO_TOKEN.message],
    ['/api/user/me', 401, INVALID_TOKEN.message],
    ['/api/user/security-events', 200],
    ['/api/user/security-events', 400],
    ['/api/user/security-events', 401],
    ['/api/user/logout', 200],
    ['/api/user/logout', 401],
    ['/api/user/change-password', 200],
    ['/api/user/change-password', 400, '原密码错误'],
    ['/api/user/change-password', 401],
  ];
  const missing = expected.filter(([route, status, message]) => !reached(route, status, message));
  expect(missing).toEqual([]);
});

async function expectHealthy(client: RawClient): Promise<void> {
  const health = await client.send({ method: 'GET', path: '/healthz', headers: {} });
  expect(health.status).toBe(200);
}

const TIMEOUT = 120_000;

/**
 * Shrinking replays requests against the stores, and some hash with scrypt: it
 * stops after a while and reports the smallest failure found by then. A run
 * cut short without a failure fails too, so no property passes on fewer runs.
 */
const limits = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  interruptAfterTimeLimit: 60_000,
  markInterruptAsFailure: true,
});

describe.each(SCHEMES)('generated requests (TOKEN_SCHEME=%s)', (scheme) => {
  const stores = suiteStores();
  let client: RawClient;
  let model: Model;

  beforeAll(async () => {
    client = await rawClient(buildApp(stores, { tokenScheme: scheme }).app);
    model = new Model(scheme, client, stores);
    // Passwords with astral, RTL and NUL characters; a name with a k for KELVIN SIGN.
    await model.register('kit_kate', 'pässwörd-😀-\u202eabc');
    await model.register('Kit.Mixed-Case', 'ש\u0000密码secret');
    await model.register('kit_plain', 'plain-password');
    await model.ensureLive(2);
  });
  afterAll(() => client.close());

  const run = (
    method: 'GET' | 'POST',
    route: string,
    judge: (model: Model) => Judge,
    bodies: fc.Arbitrary<BodyRecipe>,
    numRuns: number,
    live = 1,
    tokens = anyToken,
  ) =>
    fc.assert(
      fc.asyncProperty(fc.record({ carrier: carrier(tokens), body: bodies }), async (request) => {
        await model.ensureLive(live);
        await exchange(model, method, route, request, judge(model));
      }),
      limits(numRuns),
    );

  it(
    'POST /api/user/register',
    () =>
      run(
        'POST',
        '/api/user/register',
        judges.register,
        fc.oneof(
          {
            weight: 2,
            arbitrary: body({
              username: fc.oneof(
                { weight: 2, arbitrary: text(newUsername) },
                { weight: 2, arbitrary: ref('username', 'chosen') },
                { weight: 1, arbitrary: oddJson },
              ),
              password: fc.oneof(text(newPassword), oddJson),
            }),
          },
          {
            weight: 1,
            arbitrary: wellFormedBody({
              username: fc.oneof(text(newUsername), ref('username', 'chosen')),
              password: text(newPassword),
            }),
          },
        ),
        50,
      ),
    TIMEOUT,
  );

  it(
    'POST /api/user/login',
    () =>
      run(
        'POST',
        '/api/user/login',
        judges.login,
        fc.oneof(
          {
            weight: 3,
            arbitrary: body(
              {
                username: fc.oneof(
                  { weight: 4, arbitrary: ref('username', 'chosen') },
                  { weight: 1, arbitrary: text(newUsername) },
                  { weight: 1, arbitrary: oddJson },
                ),
                password: fc.oneof(
                  { weight: 3, arbitrary: exact('password', 'chosen') },
                  { weight: 2, arbitrary: ref('password', 'chosen') },
                  { weight: 1, arbitrary: oddJson },
                ),
              },
              { object: 8, raw: 1, none: 1 },
            ),
          },
          {
            // An unknown name in any case, again and again: its failures add up to a lock.
            weight: 1,
            arbitrary: wellFormedBody({
              username: text(fc.constantFrom('ghost', 'Ghost', 'GHOST')),
              password: text(fc.string({ minLength: 1, maxLength: 20 })),
            }),
          },
        ),
        60,
      ),
    TIMEOUT,
  );

  it(
    'GET /api/user/status',
    () => run('GET', '/api/user/status', judges.status, strayBody, 200, 2),
    TIMEOUT,
  );

  it('GET /api/user/me', () => run('GET', '/api/user/me', judges.me, strayBody, 200, 2), TIMEOUT);

  it(
    'GET /api/user/security-events',
    () => run('GET', '/api/user/security-events', judges.securityEvents, strayBody, 150, 2),
    TIMEOUT,
  );

  it(
    'POST /api/user/logout',
    () => run('POST', '/api/user/logout', judges.logout, strayBody, 150, 2),
    TIMEOUT,
  );

  it(
    'POST /api/user/change-password',
    () =>
      run(
        'POST',
        '/api/user/change-password',
        judges.changePassword,
        fc.oneof(
          {
            weight: 2,
            arbitrary: body(
              {
                oldPassword: fc.oneof(
                  { weight: 3, arbitrary: exact('password', 'owner') },
                  { weight: 2, arbitrary: ref('password', 'owner') },
                  { weight: 1, arbitrary: oddJson },
                ),
                newPassword: fc.oneof(
                  { weight: 4, arbitrary: text(newPassword) },
                  { weight: 1, arbitrary: oddJson },
                ),
              },
              { object: 8, raw: 1, none: 1 },
            ),
          },
          {
            weight: 1,
            arbitrary: wellFormedBody({
              oldPassword: fc.oneof(
                exact('password', 'owner'),
                ref('password', 'owner'),
                text(fc.string({ minLength: 1, maxLength: 20 })),
              ),
              newPassword: text(newPassword),
            }),
          },
        ),
        50,
        2,
        fc.oneof({ weight: 3, arbitrary: liveToken }, { weight: 1, arbitrary: foreignToken }),
      ),
    TIMEOUT,
  );

  it(
    'an issued token passes the guard whatever whitespace surrounds it, in either header',
    () =>
      fc.assert(
        fc.asyncProperty(
          fc.record({
            pick: fc.nat(),
            header: fc.constantFrom('authorization', 'token'),
            lead: fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 }),
            before: whitespace,
            after: whitespace,
          }),
          async ({ pick, header, lead, before, after }) => {
            await model.ensureLive(2);
            const token = model.resolveToken({ kind: 'live', pick });
            const owner = model.live.get(token);
            const value =
              header === 'authorization'
                ? `${lead}Bearer ${before}${token}${after}`
                : `${lead}${before}${token}${after}`;
            const me = envelopeOf(
              await client.send({
                method: 'GET',
                path: '/api/user/me',
                headers: { [header]: value },
              }),
            );
            expect(me.body).toEqual({
              code: 200,
              message: '获取成功',
              data: { username: owner, totp: false },
            });
            const status = envelopeOf(
              await client.send({
                method: 'GET',
                path: '/api/user/status',
                headers: { [header]: value },
              }),
            );
            expect(status.body).toMatchObject({ data: { loggedIn: true, username: owner } });
            await expectHealthy(client);
          },
        ),
        limits(100),
      ),
    TIMEOUT,
  );

  it(
    'an Authorization header not starting with "Bearer " leaves the token header in charge',
    () => {
      const notBearer = fc.oneof(
        fc.constantFrom(
          'bearer ',
          'BEARER ',
          'Bearer',
          'Bearer\t',
          'Bearer:',
          'Bearer\u00a0',
          '\u00a0Bearer ',
          'Basic ',
          'Token ',
          'Bearer \t ',
          '',
        ),
        headerText,
      );
      return fc.assert(
        fc.asyncProperty(
          fc.record({
            prefix: notBearer,
            inAuthorization: anyToken,
            tokenHeader: fc.option(placed(fc.oneof(liveToken, foreignToken)), { nil: undefined }),
          }),
          async ({ prefix, inAuthorization, tokenHeader }) => {
            await model.ensureLive(2);
            const authorization = prefix + model.resolveToken(inAuthorization);
            fc.pre(!received(authorization).startsWith('Bearer '));
            const headers: Record<string, string> = { authorization };
            let carried: string | undefined;
            if (tokenHeader) {
              const { before, token, after } = tokenHeader;
              headers.token = `${before}${model.resolveToken(token)}${after}`;
              carried = received(headers.token).trim() || undefined;
            }
            const owner = carried === undefined ? undefined : model.live.get(carried);
            const expected =
              carried === undefined
                ? NO_TOKEN
                : owner === undefined
                  ? INVALID_TOKEN
                  : { code: 200, message: '获取成功', data: { username: owner, totp: false } };
            const me = envelopeOf(
              await client.send({ method: 'GET', path: '/api/user/me', headers }),
            );
            expect(me.body).toEqual(expected);
            await expectHealthy(client);
          },
        ),
        limits(100),
      );
    },
    TIMEOUT,
  );

  it(
    'an Authorization header starting with "Bearer " decides alone, whatever the token header says',
    () =>
      fc.assert(
        fc.asyncProperty(
          fc.record({ inAuthorization: placed(anyToken), inTokenHeader: anyToken }),
          async ({ inAuthorization, inTokenHeader }) => {
            await model.ensureLive(2);
            const { before, token, after } = inAuthorization;
            const authorization = `Bearer ${before}${model.resolveToken(token)}${after}`;
            const headers = { authorization, token: model.resolveToken(inTokenHeader) };
            const rest = received(authorization).slice('Bearer '.length).trim();
            fc.pre(received(authorization).startsWith('Bearer '));
            const owner = model.live.get(rest);
            const expected =
              rest === ''
                ? NO_TOKEN
                : owner === undefined
                  ? INVALID_TOKEN
                  : { code: 200, message: '获取成功', data: { username: owner, totp: false } };
            const me = envelopeOf(
              await client.send({ method: 'GET', path: '/api/user/me', headers }),
            );
            expect(me.body).toEqual(expected);
            await expectHealthy(client);
          },
        ),
        limits(100),
      ),
    TIMEOUT,
  );
});
