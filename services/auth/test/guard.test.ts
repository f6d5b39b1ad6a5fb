import { createGuard } from '@svc/session-guard';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { suiteStores } from './support/suite-setup.js';
import { buildApp, login, registerUser, SCHEMES } from './support/test-app.js';

/*
 * The guard's own behaviour is tested in packages/session-guard; this file
 * checks that it takes the sessions this service writes, imported by its
 * package name as other teams import it.
 */
const stores = suiteStores();

describe.each(SCHEMES)('the guard package (scheme %s)', (scheme) => {
  it('accepts tokens the auth service issued, whatever the account roles', async () => {
    const app = express();
    app.get('/api/testQuestion/list', createGuard({ redis: stores.redis, scheme }), (req, res) => {
      res.json({ code: 200, message: 'ok', data: { token: req.token, user: req.user } });
    });
    const service = buildApp(stores, { tokenScheme: scheme }).app;
    const account = await registerUser(service);
    await stores.pool.query("UPDATE users SET roles = 'admin' WHERE id = ?", [account.id]);
    const issued = await login(service, account.username, account.password);
    const res = await request(app).get('/api/testQuestion/list').set('token', issued);
    expect(res.status).toBe(200);
    expect(res.body.data.user).toEqual({ username: account.username });
  });
});
