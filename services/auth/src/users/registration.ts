import { AppError } from '@svc/common';
import type { Request } from 'express';
import { clientAddress } from '../http/client-address.js';
import type { LoginLimiter } from './login-limiter.js';
import { verifyPassword } from './password.js';
import { USERNAME_TAKEN } from './user.messages.js';
import type { UserRepository } from './user.repository.js';

/**
 * How long after a register its retry is answered as the register was: the
 * retry of an answer that was lost comes within seconds; older accounts are
 * only "taken".
 */
const RETRY_WINDOW_MS = 10 * 60 * 1000;

/**
 * A register whose username is taken, when it is the retry of one whose
 * answer was lost (its INSERT committed, its answer never came): the account
 * of that exact spelling, made within RETRY_WINDOW_MS, whose hash verifies the
 * same password, is answered as the register's success. The check counts as a
 * login of its address and the account's budget, so it guesses no password
 * faster than logins do; a locked pair or budget is only "taken".
 */
export function registerRetries(users: UserRepository, limiter: LoginLimiter) {
  return async function registered(
    req: Request,
    username: string,
    password: string,
  ): Promise<{ id: number; username: string }> {
    const user = await users.findByUsername(username);
    const taken = new AppError(409, USERNAME_TAKEN);
    if (!user || user.username !== username) throw taken;
    if (Date.now() - user.createdAt.getTime() > RETRY_WINDOW_MS) throw taken;
    const counted = { address: clientAddress(req), account: true };
    const admission = await limiter.admit(username, counted, () => !req.socket.destroyed);
    if (admission.outcome === 'locked') throw taken;
    let ok: boolean;
    try {
      ok = (await verifyPassword(password, user.password)).ok;
    } catch (err) {
      await limiter.settle(admission.slot, 'abandoned').catch(() => {});
      throw err;
    }
    await limiter.settle(admission.slot, ok ? 'succeeded' : 'failed');
    if (!ok) throw taken;
    return { id: user.id, username: user.username };
  };
}
