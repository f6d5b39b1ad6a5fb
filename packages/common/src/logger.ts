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

/** The process's stdout destination, shared by its loggers: one buffer, one exit hook. */
let stdout: DestinationStream | undefined;

/**
 * stdout through pino's own synchronous destination (SonicBoom, which retries
 * a pipe's EAGAIN and finishes short writes), the lines of one event-loop
 * turn in one write when the turn ends, and what is left at exit (a crash's
 * uncaught exception included). A line is in the file microseconds after the
 * call, in order; only a SIGKILL or an abort in the middle of a turn loses
 * that turn's lines. With the log going to a file, a write per line cost
 * order create some 3-6% more CPU per order in the same turns (the git
 * history of the README, "Benchmarks"): the kernel's part of each write, not
 * the making of the line.
 */
function stdoutDestination(): DestinationStream {
  if (stdout) return stdout;
  const sonic = pino.destination({ dest: 1, sync: true });
  let lines = '';
  const writeLines = () => {
    const text = lines;
    lines = '';
    if (text !== '') sonic.write(text);
  };
  process.on('exit', writeLines);
  stdout = {
    write(line: string) {
      if (lines === '') setImmediate(writeLines);
      lines += line;
    },
  };
  return stdout;
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
