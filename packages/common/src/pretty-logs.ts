import { createRequire } from 'node:module';
import { type DestinationStream, pino } from 'pino';
import type { MessageFormatFunc, prettyFactory } from 'pino-pretty';

const require = createRequire(import.meta.url);

/** What a line shows besides its time, level, name and message; the rest is for machines. */
const HIDDEN = 'pid,hostname,req,res,responseTime,reqId';

/** An access line as `GET /api/user/me 200 3 ms`; a line of a request ends with its id. */
const lineOf: MessageFormatFunc = (log, messageKey) => {
  const req = log.req as { method?: string; url?: string } | undefined;
  const res = log.res as { statusCode?: number } | undefined;
  const id = typeof log.reqId === 'string' ? ` [${log.reqId}]` : '';
  if (!req || !res) return `${log[messageKey]}${id}`;
  const outcome = log[messageKey] === 'request aborted' ? 'aborted' : res.statusCode;
  return `${req.method} ${req.url} ${outcome} ${log.responseTime} ms${id}`;
};

/**
 * Readable lines on stdout, made from each JSON line after redaction (so a
 * secret is as censored here as in JSON) and written synchronously like the
 * JSON ones. pino-pretty is a development dependency: where it is not
 * installed (production images) this is undefined and the lines stay JSON.
 */
export function prettyStdout(): DestinationStream | undefined {
  let factory: typeof prettyFactory;
  try {
    factory = (require('pino-pretty') as { prettyFactory: typeof prettyFactory }).prettyFactory;
  } catch {
    return undefined;
  }
  const prettify = factory({
    ignore: HIDDEN,
    messageFormat: lineOf,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
  });
  const stdout = pino.destination({ dest: 1, sync: true });
  return { write: (line: string) => stdout.write(prettify(line)) };
}
