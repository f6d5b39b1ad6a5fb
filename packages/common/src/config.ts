import { z } from 'zod';

/** Thrown when the environment does not describe a usable configuration. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Variables whose values never appear in an error: passwords, secrets, tokens. */
const SECRET = /(^|_)(PASSWORD|SECRET|TOKEN)$/;

/**
 * Parses the environment with a zod object schema. Empty strings count as unset,
 * so `FOO=` falls back to the default. Every bad variable is reported at once.
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const input: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;

  const lines = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? '(environment)');
    const got = input[name];
    const shown = got === undefined ? 'unset' : SECRET.test(name) ? 'set' : JSON.stringify(got);
    return `  ${name}: ${issue.message} (got ${shown})`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** An integer variable within [min, max]. */
export function intVar(fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  const expects = `expected an integer from ${min} to ${max}`;
  return z
    .string()
    .regex(/^-?\d+$/, expects)
    .transform(Number)
    .refine((n) => n >= min && n <= max, expects)
    .default(fallback);
}

/** A boolean variable: true/false/1/0/yes/no/on/off. */
export function boolVar(fallback: boolean) {
  return z.stringbool({ error: 'expected true or false' }).default(fallback);
}

export function stringVar(fallback: string, max = 255) {
  return z.string().max(max, `expected at most ${max} characters`).default(fallback);
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables every HTTP service reads. */
export function httpEnv(defaultPort: number) {
  return {
    PORT: intVar(defaultPort, 0, 65535),
    HOST: stringVar('0.0.0.0'),
    LOG_LEVEL: z
      .enum(logLevels, { error: `expected one of ${logLevels.join(', ')}` })
      .default('info'),
    /** auto: readable lines on a terminal (with pino-pretty installed), JSON otherwise. */
    LOG_FORMAT: z
      .enum(['auto', 'json', 'pretty'], { error: 'expected auto, json or pretty' })
      .default('auto'),
    BODY_LIMIT_KB: intVar(100, 1, 10_240),
    SHUTDOWN_GRACE_MS: intVar(10_000, 0, 600_000),
    /** A client that reads nothing of its answer (nor sends anything) this long is cut off. */
    SEND_IDLE_TIMEOUT_MS: intVar(30_000, 100, 3_600_000),
    /** false: no metrics at all (for measuring what they cost). */
    METRICS_ENABLED: boolVar(true),
    /** 0: GET /metrics on the service port; else only on this port, on a listener of its own. */
    METRICS_PORT: intVar(0, 0, 65535),
  };
}

export type HttpConfig = z.infer<z.ZodObject<ReturnType<typeof httpEnv>>>;
