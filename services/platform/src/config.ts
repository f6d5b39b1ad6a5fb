import { boolVar, httpEnv, intVar, loadConfig, mysqlEnv } from '@svc/common';
import { z } from 'zod';
import { RETRY_SCHEDULE, RETRY_SCHEDULE_DAYS } from './webhooks/retry-schedule.js';

/**
 * A Bearer token as RFC 6750 writes it (b64token): what `openssl rand -hex 32`
 * or base64 give. A token with spaces at its ends or other characters could
 * never arrive intact in an Authorization header.
 */
const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/;
const HOST_PORTS = 'expected host:port entries separated by commas';

/** `host:port,host:port`; empty for none. */
const hostPorts = z
  .string()
  .default('')
  .transform((text) => text.split(',').map((entry) => entry.trim()))
  .transform((entries) => (entries.length === 1 && entries[0] === '' ? [] : entries))
  .refine((entries) => entries.every((entry) => HOST_PORT.test(entry)), HOST_PORTS)
  .transform((entries) =>
    entries.map((entry) => {
      const at = entry.lastIndexOf(':');
      return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
    }),
  )
  .refine((hosts) => hosts.every(({ port }) => port >= 1 && port <= 65535), HOST_PORTS);

/** nats://host:port (or tls://, ws://, wss://), several separated by commas. */
const NATS_URLS = /^(nats|tls|ws|wss):\/\/[^\s,]+(,(nats|tls|ws|wss):\/\/[^\s,]+)*$/;

/** A positive number of hours, fractions allowed (a test may use seconds' worth). */
const hoursVar = (fallback: number) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'expected a number of hours')
    .transform(Number)
    .refine((hours) => hours > 0 && hours <= 24 * 3650, 'expected more than 0 and at most 87600')
    .default(fallback);

export const configSchema = z.object({
  ...httpEnv(8080),
  ...mysqlEnv('life_service'),
  /** Read replicas of MYSQL_HOST for the list routes (same user, password, database); none when empty. */
  MYSQL_REPLICA_HOSTS: hostPorts,
  /** How long a list waits for a replica to apply the writes answered before it; past that, the primary. */
  REPLICA_WAIT_MS: intVar(100, 1, 60_000),
  /** Whole (unpaged) lists of each route that may hold a connection of the pool at once. */
  LIST_CONCURRENCY: intVar(2, 1, 1000),
  LIST_CACHE_MB: intVar(32, 0, 4096),
  /** Shared order INSERTs (of up to 32 orders each) running at once. */
  INSERT_CONCURRENCY: intVar(2, 1, 1000),
  /** How long a create's Idempotency-Key is kept, from its first request: a day, at most 30. */
  IDEMPOTENCY_TTL_SECONDS: intVar(86_400, 1, 30 * 86_400),
  /**
   * How long events are kept for the feed and the stream, and failed webhook
   * deliveries for a retry, in days; never shorter than the retries themselves.
   */
  EVENT_RETENTION_DAYS: intVar(30, 1, 3650).refine((days) => days >= RETRY_SCHEDULE_DAYS, {
    error: `expected at least ${RETRY_SCHEDULE_DAYS} days: a webhook delivery is ${RETRY_SCHEDULE}, and retention may not be shorter`,
    when: (parsed) => parsed.issues.length === 0,
  }),
  /** Where the events are relayed to a NATS JetStream stream too; no relay when unset. */
  EVENTS_NATS_URL: z
    .string()
    .regex(NATS_URLS, 'expected nats://host:port, several separated by commas')
    .optional(),
  /** The JetStream stream the events go to (made when missing). */
  EVENTS_NATS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1 to 64 of A-Z a-z 0-9 _ -')
    .default('PLATFORM_EVENTS'),
  /** How long a webhook's secret replaced by a rotation still signs beside the new one. */
  WEBHOOK_OLD_SECRET_HOURS: hoursVar(24),
  /** A webhook whose attempts have all failed this long is disabled. */
  WEBHOOK_DISABLE_AFTER_HOURS: hoursVar(120),
  /** True: webhook URLs may name loopback, private, link-local and other special-purpose addresses (tests, a private network). */
  WEBHOOK_ALLOW_PRIVATE: boolVar(false),
  /** Unset or empty: the administrator routes are open, as the spec has them. */
  PLATFORM_ADMIN_TOKEN: z
    .string()
    .min(16, 'expected at least 16 characters')
    .regex(B64TOKEN, 'expected only A-Z a-z 0-9 - . _ ~ + / and = at the end')
    .optional(),
});

type PlatformConfig = z.infer<typeof configSchema>;

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  return loadConfig(configSchema, env);
}
