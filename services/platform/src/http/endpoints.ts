import { AppError, type OperationDoc, type ResponseDoc } from '@svc/common';
import { type RequestHandler, Router } from 'express';
import { z } from 'zod';
import { LISTS_BUSY } from '../db/slots.js';
import { ADMIN_TOKEN_REQUIRED } from './admin-token.js';
import { methodNotAllowedBody } from './envelopes.js';
import {
  ADMIN_FAILURE_CODES,
  FAILURE_CODES,
  type FailureCode,
  type FailureEnvelope,
  failsWith,
  releaseBodyError,
} from './failure.js';

/**
 * One route of the spec as the router mounts it and the API document shows it:
 * the schemas are the ones its handler parses with and its answers fit.
 */
export interface EndpointDoc {
  method: 'get' | 'post' | 'put';
  path: string;
  summary: string;
  tags: string[];
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  bodyExample?: unknown;
  /** The success body. */
  reply: z.ZodType;
  replyExample: unknown;
  /** Headers of the success answer besides X-Request-Id. */
  replyHeaders?: ResponseDoc['headers'];
  failure: FailureEnvelope;
  /** Failure texts shown as examples, by code. */
  failureTexts: Partial<Record<FailureCode | 404, string>>;
  /** An administrator route: it takes the administrator token while PLATFORM_ADMIN_TOKEN is set. */
  admin?: true;
  /** A list whose unpaged form takes a LIST_CONCURRENCY slot, so it may answer 503. */
  wholeList?: true;
}

export interface Endpoint extends EndpointDoc {
  handler: RequestHandler;
}

export interface RouterOptions {
  /** Runs before the administrator routes; none leaves them open. */
  adminGuard?: RequestHandler;
}

/**
 * Mounts the endpoints; a known path asked with another method answers 405.
 * The guard of an administrator route answers before a broken body does.
 */
export function endpointRouter(endpoints: Endpoint[], { adminGuard }: RouterOptions = {}): Router {
  const router = Router();
  const paths = [...new Set(endpoints.map((endpoint) => endpoint.path))];
  for (const path of paths) {
    const route = router.route(path);
    const own = endpoints.filter((endpoint) => endpoint.path === path);
    for (const { method, failure, handler, admin } of own) {
      const guard = admin && adminGuard ? [adminGuard] : [];
      route[method](failsWith(failure), ...guard, releaseBodyError, handler);
    }
    const methods = own.map((endpoint) => endpoint.method.toUpperCase());
    const allowed = (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
    route.all((_req, res) => {
      res.set('Allow', allowed);
      throw new AppError(405, 'Method Not Allowed');
    });
  }
  return router;
}

/** The request id every route takes, and every answer carries. */
export const requestIdHeader = z.object({
  'x-request-id': z.string().optional().meta({
    description:
      'Kept for the answer and the log when it is at most 128 characters of A-Z a-z 0-9 . _ -; otherwise replaced',
  }),
});

export const requestIdReply = {
  'X-Request-Id': { description: 'the request id, as sent or generated', schema: z.string() },
};

/** The spec's route as an OpenAPI operation: every outcome at HTTP 200, and the 405 of its path. */
export function operationDoc(endpoint: EndpointDoc): OperationDoc {
  const { failure, reply, replyExample, admin } = endpoint;
  const failureTexts = admin
    ? { ...endpoint.failureTexts, 401: ADMIN_TOKEN_REQUIRED }
    : endpoint.failureTexts;
  const failures = Object.entries(failureTexts).map(([code, text]) =>
    failure.body(Number(code), text),
  );
  const operation: OperationDoc = {
    method: endpoint.method,
    path: endpoint.path,
    summary: endpoint.summary,
    tags: endpoint.tags,
    params: endpoint.params,
    query: endpoint.query,
    headers: requestIdHeader,
    body: endpoint.body,
    bodyExample: endpoint.bodyExample,
    responses: {
      200: {
        description:
          'Every outcome answers HTTP 200; the body code tells them apart: 200 with the reply, else the failure body',
        schema: z.union([
          reply.meta({ examples: [replyExample] }),
          failure.schema(admin ? ADMIN_FAILURE_CODES : FAILURE_CODES).meta({ examples: failures }),
        ]),
        example: replyExample,
        headers: { ...requestIdReply, ...endpoint.replyHeaders },
      },
      405: {
        description: 'The path asked with another method; Allow names the methods it takes',
        schema: methodNotAllowedBody,
        example: { code: 405, message: 'Method Not Allowed' },
        headers: {
          ...requestIdReply,
          Allow: { description: "the path's methods", schema: z.string() },
        },
      },
    },
  };
  if (endpoint.wholeList) operation.responses[503] = wholeListBusy(failure);
  return operation;
}

/** The 503 of a whole list that found no LIST_CONCURRENCY slot free in time. */
function wholeListBusy(failure: FailureEnvelope): ResponseDoc {
  return {
    description:
      'Without page or pageSize, when LIST_CONCURRENCY whole lists of this route are being read and none has ended for a second (or the request has waited 30 s): try again after Retry-After seconds',
    schema: failure.schema([503]),
    example: failure.body(503, LISTS_BUSY),
    headers: {
      ...requestIdReply,
      'Retry-After': { description: 'seconds to wait', schema: z.string() },
    },
  };
}
