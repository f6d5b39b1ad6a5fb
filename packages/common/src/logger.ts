import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

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

interface LoggerSettings {
  name: string;
  level?: LoggerOptions['level'];
}

/**
 * stdout written synchronously, one write(2) per line, through pino's own
 * destination (SonicBoom). pino's default is the asynchronous one with no
 * buffer (each line its own write handed to the thread pool). On order create,
 * with the log going to a file, neither that nor an asynchronous 4 KiB buffer
 * (nor a synchronous one) cost measurably less CPU per request than this: the
 * line's cost was its redaction, not its write (bench/NOTES-issue17.md). So
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
  return pino(options, destination ?? stdoutDestination());
}

export type { Logger } from 'pino';
