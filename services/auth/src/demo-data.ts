import { createDatabase, type Pool } from '@svc/common';
import { hashPassword } from './users/password.js';
import { userRepository } from './users/user.repository.js';

/** The demo account `pnpm seed` makes; the README names it, so it is no secret. */
export const DEMO_USER = { username: 'demo', password: 'demo-pass-1' };

/**
 * Adds the demo account unless a user of that name exists, in which case
 * nothing changes (its password included). True when it was added.
 */
export async function seedDemoData(pool: Pool): Promise<boolean> {
  const users = userRepository(createDatabase(pool));
  if (await users.findByUsername(DEMO_USER.username)) return false;
  const id = await users.insert(DEMO_USER.username, await hashPassword(DEMO_USER.password));
  return id !== undefined;
}
