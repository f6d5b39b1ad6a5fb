import type { OperationDoc, ResponseDoc } from '@svc/common';
import { z } from 'zod';
import {
  IDEMPOTENT_REPLAYED,
  KEY_IN_FLIGHT,
  KEY_REUSED,
} from '../../idempotency/idempotency.messages.js';
import { ADMIN_TOKEN_REQUIRED, LISTS_BUSY, OUTCOME_UNKNOWN, WRITE_CONFLICT } from '../messages.js';
import type { DocumentedFailure, FailureCode } from './failure-envelopes.js';
import { wrongMethod } from './reply-schemas.js';

/**
 * A spec route as the API document shows it, in its resource's `*.routes.ts`:
 * the schemas are the ones its handler parses with and its answers fit, and
 * `failure` is the envelope the service's error middleware answers its
 * failures in.
 */
export interface RouteDoc {
  method: 'get' | 'post' | 'put';
  path: string;
  /** Older paths that answer the same, each with the client that still calls it. */
  aliases?: Record<string, string>;
  summary: string;
  tags: string[];
  /** The schemas the route's input is parsed with (http/input.ts withInput). */
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  bodyExample?: unknown;
  /** The success body. */
  reply: z.ZodType;
  replyExample: unknown;
  /** Headers of the success answer. */
  replyHeaders?: ResponseDoc['headers'];
  failure: DocumentedFailure;
  /** Failure texts shown as examples, by code. */
  failureTexts: Partial<Record<FailureCode | 404, string>>;
  /** Takes the administrator token while PLATFORM_ADMIN_TOKEN is set. */
  admin?: true;
  /** A list whose unpaged form takes a LIST_CONCURRENCY slot, so it may answer 503. */
  wholeList?: true;
  /** A create that takes an Idempotency-Key, so it may answer 409 and 422 (and 503, as every write). */
  idempotent?: true;
}

const FAILURE_CODES: readonly FailureCode[] = [400, 413, 415, 500];
const ADMIN_FAILURE_CODES: readonly FailureCode[] = [400, 401, 413, 415, 500];

/** The object a path or query schema documents: a transformed one (a pipe) by what it takes in. */
const documented = (schema: z.ZodType | undefined) =>
  (schema instanceof z.ZodPipe ? schema.in : schema) as z.ZodObject | undefined;

/** The security scheme of the administrator routes, as app.ts declares it. */
export const ADMIN_TOKEN_SCHEME = 'adminToken';

const ADMIN_NOTE =
  'An administrator route: while the service runs with PLATFORM_ADMIN_TOKEN set, it takes `Authorization: Bearer <PLATFORM_ADMIN_TOKEN>` and answers code 401 (`administrator token required`, at HTTP 200) without it. With the variable unset it is open, as the spec has it.';

/** The route's path and each alias (`The same as GET /api/order/list, for …`) as OpenAPI operations. */
export function operationDocs(route: RouteDoc): OperationDoc[] {
  const same = `The same as ${route.method.toUpperCase()} ${route.path}, for`;
  const aliases = Object.entries(route.aliases ?? {}).map(([path, client]) => ({
    ...route,
    path,
    summary: `${same} ${client}`,
  }));
  return [route, ...aliases].map(operationDoc);
}

/** The route as an OpenAPI operation: every outcome at HTTP 200, and the 405 of its path. */
function operationDoc(route: RouteDoc): OperationDoc {
  const { failure, reply, replyExample, admin } = route;
  const failureTexts = admin
    ? { ...route.failureTexts, 401: ADMIN_TOKEN_REQUIRED }
    : route.failureTexts;
  const failures = Object.entries(failureTexts).map(([code, text]) =>
    failure.body(Number(code), text),
  );
  const operation: OperationDoc = {
    method: route.method,
    path: route.path,
    summary: route.summary,
    tags: route.tags,
    params: documented(route.params),
    query: documented(route.query),
    body: route.body,
    bodyExample: route.bodyExample,
    responses: {
      200: {
        description:
          'Every outcome answers HTTP 200; the body code tells them apart: 200 with the reply, else the failure body',
        schema: z.union([
          reply.meta({ examples: [replyExample] }),
          failure.schema(admin ? ADMIN_FAILURE_CODES : FAILURE_CODES).meta({ examples: failures }),
        ]),
        example: replyExample,
        headers: route.replyHeaders,
      },
      405: wrongMethod,
    },
  };
  if (admin) {
    operation.description = ADMIN_NOTE;
    operation.security = [{ [ADMIN_TOKEN_SCHEME]: [] }];
  }
  if (route.wholeList) operation.responses[503] = wholeListBusy(failure);
  if (route.method !== 'get') operation.responses[503] = writeNotDone(failure);
  if (route.idempotent) keyed(operation, failure);
  return operation;
}

const IDEMPOTENCY_NOTE =
  'Send an `Idempotency-Key` to make the create safe to retry: a new random key for each create attempt (a UUID v4), the same on each retry of it. A retry with the same key and body answers as the first did, with `Idempotent-Replayed: true`, and writes nothing. Keys are scoped per resource, not per caller: never send a guessable one such as an order number.';

/** The Idempotency-Key of a create: the header it takes and the answers it adds. */
function keyed(operation: OperationDoc, failure: DocumentedFailure): void {
  operation.description = [operation.description, IDEMPOTENCY_NOTE].filter(Boolean).join('\n\n');
  operation.headers = z.object({
    'Idempotency-Key': z
      .string()
      .regex(/^(?:[!-~]{1,255}|"[!#-[\]-~]{1,255}")$/)
      .optional()
      .meta({
        description:
          'Optional. 1 to 255 visible ASCII characters, or the same in double quotes (without `"` and `\\` inside). The key of this create: kept with the row it writes for IDEMPOTENCY_TTL_SECONDS (a day by default). A malformed key is code 400.',
      }),
  });
  const success = operation.responses[200] as ResponseDoc;
  success.headers = {
    ...success.headers,
    [IDEMPOTENT_REPLAYED]: {
      description:
        '`true` when the answer is the one kept for the Idempotency-Key: nothing new was written',
      schema: z.literal('true'),
      required: false,
    },
  };
  operation.responses[409] = {
    description:
      'The first request with this Idempotency-Key is still being carried out: nothing written; try again after Retry-After seconds',
    schema: failure.schema([409]),
    example: failure.body(409, KEY_IN_FLIGHT),
    headers: { 'Retry-After': { description: 'seconds to wait', schema: z.string() } },
  };
  operation.responses[422] = {
    description:
      'The Idempotency-Key was used with a different request body: nothing written. Use a new key for a new request',
    schema: failure.schema([422]),
    example: failure.body(422, KEY_REUSED),
  };
}

/** The 503 of a write: given way to another transaction, or sent with no answer back. */
function writeNotDone(failure: DocumentedFailure): ResponseDoc {
  return {
    description: `The write gave way to a conflicting transaction (a lost deadlock, or a lock wait past the database's bound): nothing written. Or its outcome is unknown (\`${OUTCOME_UNKNOWN}\`): it was sent and the database never answered, so it may have been written; a retry settles it (for a create, with the same Idempotency-Key). Try again after Retry-After seconds`,
    schema: failure.schema([503]),
    example: failure.body(503, WRITE_CONFLICT),
    headers: { 'Retry-After': { description: 'seconds to wait', schema: z.string() } },
  };
}

/** The 503 of a whole list that found no LIST_CONCURRENCY slot free in time. */
function wholeListBusy(failure: DocumentedFailure): ResponseDoc {
  return {
    description:
      'Without page or pageSize, when LIST_CONCURRENCY whole lists of this route are being read and each has waited a second on a client that takes nothing (or the request has waited 30 s): try again after Retry-After seconds',
    schema: failure.schema([503]),
    example: failure.body(503, LISTS_BUSY),
    headers: { 'Retry-After': { description: 'seconds to wait', schema: z.string() } },
  };
}
