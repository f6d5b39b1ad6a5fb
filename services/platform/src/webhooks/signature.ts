import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret as Standard Webhooks writes one: `whsec_` and 32 random bytes in base64. */
export const newSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`;

/**
 * The webhook-signature header of Standard Webhooks: `v1,` and the base64
 * HMAC-SHA256, keyed with the secret's bytes, of `<id>.<timestamp>.<body>`.
 * Our own few lines of node:crypto rather than the standardwebhooks package,
 * which does the same on top of a JavaScript SHA-256 of its own: the tests
 * check ours against it.
 */
export function signature(secret: string, id: string, timestamp: number, body: Buffer): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}
