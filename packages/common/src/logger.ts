import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

/** Secrets that must never reach a log line, wherever they sit in the object logged. */
export const REDACTED_PATHS = [
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

export interface LoggerSettings {
  name: string;
  level?: LoggerOptions['level'];
}

export function createLogger(settings: LoggerSettings, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name: settings.name,
    level: settings.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger } from 'pino';
