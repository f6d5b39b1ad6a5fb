import { Writable } from 'node:stream';

export interface CapturedLogs<L> {
  logger: L;
  /** Every line written so far, as raw JSON text. */
  text(): string;
  /** Every line written so far, parsed. */
  entries(): Record<string, unknown>[];
}

/**
 * The logger `makeLogger` builds on a stream the test can read: pass the
 * production factory, so redaction and format are the real ones.
 */
export function captureLogs<L>(makeLogger: (sink: Writable) => L): CapturedLogs<L> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const text = () => chunks.join('');
  return {
    logger: makeLogger(sink),
    text,
    entries: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
