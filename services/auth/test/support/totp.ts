import type { Express } from 'express';
import { Secret, TOTP } from 'otpauth';
import request from 'supertest';
import { expect } from 'vitest';
import { bearer } from './test-app.js';

const STEP_MS = 30_000;

/** The code an authenticator app shows `steps` 30-second steps from now. */
export const codeOf = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({
    timestamp: Date.now() + steps * STEP_MS,
  });

/**
 * Turns TOTP on for `user` (from a session it then ends), as a person with an
 * authenticator app would: its base32 secret and recovery codes. The confirm
 * spent the current step's code.
 */
export async function enrol(app: Express, user: { username: string; password: string }) {
  const login = await request(app).post('/api/user/login').send(user);
  const token = login.body.data.token as string;
  const setup = await request(app).post('/api/user/2fa/totp/setup').set(bearer(token));
  expect(setup.status).toBe(200);
  const secret = setup.body.data.secret as string;
  const confirmed = await request(app)
    .post('/api/user/2fa/totp/confirm')
    .set(bearer(token))
    .send({ code: codeOf(secret) });
  expect(confirmed.status).toBe(200);
  expect((await request(app).post('/api/user/logout').set(bearer(token))).status).toBe(200);
  return { secret, recoveryCodes: confirmed.body.data.recoveryCodes as string[] };
}
