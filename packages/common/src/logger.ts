import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { prettyStdout } from './pretty-logs.js';

/** Secrets that must never reach a log line, wherever they sit in the object logged. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.token',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.token',
  'authorization',
  'token',
  'password',
  'oldPassword',
  'newPassword',
  '*.token',
  '*.password',
  '*.oldPassword',
  '*.newPassword',
  '*.*.password',
  '*.*.oldPassword',
  '*.*.newPassword',
];

export const REDACTED = '[redacted]';

/** LOG_FORMAT: `auto` is readable lines on a terminal and JSON anywhere else. */
export type LogFormat = 'auto' | 'json' | 'pretty';

interface LoggerSettings {
  name: string;
  level?: LoggerOptions['level'];
  /** Default `json`. */
  format?: LogFormat;
}

/**
 * stdout written synchronously, one write(2) per line, through pino's own
 * destination (SonicBoom). On order create, with the log going to a file,
 * pino's asynchronous destination, alone or with a 4 KiB buffer, cost no less
 * CPU per request than this beyond the machine's noise (interleaved runs,
 * README "Benchmarks"): the line's cost is in making it, not writing it. So
 * the simplest wins: a line is in the file when the call returns, and no exit,
 * crash or kill can lose one.
 */
function stdoutDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}

export function createLogger(settings: LoggerSettings, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name: settings.name,
    level: settings.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
  };
  if (destination) return pino(options, destination);
  const format = settings.format ?? 'json';
  const wantsPretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  const pretty = wantsPretty ? prettyStdout() : undefined;
  const logger = pino(options, pretty ?? stdoutDestination());
  if (format === 'pretty' && !pretty) {
    logger.warn('LOG_FORMAT=pretty needs pino-pretty, a development dependency; logging JSON');
  }
  return logger;
}

export type { Logger } from 'pino';
