import { captureLogs } from '@svc/test-kit';
import { createLogger } from '../../src/logger.js';

/** The production logger on a stream the test reads. */
export const testLogs = (name = 'test') =>
  captureLogs((sink) => createLogger({ name, level: 'trace' }, sink));
