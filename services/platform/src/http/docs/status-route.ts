import type { OperationDoc, ResponseDoc } from '@svc/common';
import { z } from 'zod';
import { ADMIN_TOKEN_REQUIRED, STORAGE_UNAVAILABLE } from '../messages.js';
import { CODE_TEXTS } from './failure-envelopes.js';
import type { MediaTypedResponse } from './media-types.js';
import { messageReply, wrongMethod } from './reply-schemas.js';
import { ADMIN_TOKEN_SCHEME } from './route-doc.js';

/** What each failure of the events and webhook routes means. */
const MEANINGS: Record<number, string> = {
  400: 'a parameter or the body breaks a rule; the message names it',
  401: CODE_TEXTS[401],
  404: 'no webhook has the id',
  410: 'the events after `after` are no longer kept (EVENT_RETENTION_DAYS): some were missed',
  413: CODE_TEXTS[413],
  415: CODE_TEXTS[415],
  503: 'the store is unavailable, or a write gave way to a conflicting transaction (nothing written), or its outcome is unknown (sent, and the database never answered: a retry settles it); the text says which. Try again after Retry-After seconds',
};

const ADMIN_NOTE =
  'An administrator route: while the service runs with PLATFORM_ADMIN_TOKEN set, it takes `Authorization: Bearer <PLATFORM_ADMIN_TOKEN>` and answers HTTP 401 without it. With the variable unset it is open.';

/** A route outside the spec: its success at HTTP 200, each failure `{ code, message }` at the HTTP status of its code. */
export interface StatusRouteDoc extends Omit<OperationDoc, 'responses'> {
  /** Every route outside the spec takes the administrator token (while PLATFORM_ADMIN_TOKEN is set). */
  admin: true;
  success: MediaTypedResponse;
  /** Failure texts shown as examples, by code; 401 and 503 are added to every route. */
  failureTexts: Partial<Record<number, string>>;
}

export function statusOperation(route: StatusRouteDoc): OperationDoc {
  const { success, failureTexts, admin: _admin, ...operation } = route;
  const texts = { ...failureTexts, 401: ADMIN_TOKEN_REQUIRED, 503: STORAGE_UNAVAILABLE };
  const responses: Record<number, ResponseDoc> = { 200: success };
  for (const [code, text] of Object.entries(texts)) {
    responses[Number(code)] = {
      description: MEANINGS[Number(code)] ?? text,
      schema: messageReply(Number(code)),
      example: { code: Number(code), message: text },
      headers:
        code === '503'
          ? { 'Retry-After': { description: 'seconds to wait', schema: z.string() } }
          : undefined,
    };
  }
  responses[405] = wrongMethod;
  return {
    ...operation,
    description: [operation.description, ADMIN_NOTE].filter(Boolean).join('\n\n'),
    security: [{ [ADMIN_TOKEN_SCHEME]: [] }],
    responses,
  };
}
