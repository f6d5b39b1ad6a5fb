import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logger.js';

export interface CapturedLogs {
  logger: Logger;
  /** Every line written so far, as raw JSON text. */
  text(): string;
  /** Every line written so far, parsed. */
  entries(): Record<string, unknown>[];
}

/** A real pino logger (redaction included) whose output the test can read. */
export function captureLogs(name = 'test'): CapturedLogs {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ name, level: 'trace' }, sink);
  const text = () => chunks.join('');
  return {
    logger,
    text,
    entries: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
