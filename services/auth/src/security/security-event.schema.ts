import { z } from 'zod';
import { CURSOR_MALFORMED, PAGE_SIZE_RULE } from './security-event.messages.js';

export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,100}$/;

/** The query of GET /api/user/security-events: a page size, and the cursor of the page before. */
export const securityEventsQuery = z.object({
  pageSize: z
    .string({ error: PAGE_SIZE_RULE })
    .regex(/^\d{1,3}$/, PAGE_SIZE_RULE)
    .transform(Number)
    .refine((size) => size >= 1 && size <= MAX_PAGE_SIZE, PAGE_SIZE_RULE)
    .optional()
    .meta({
      description: `events per page, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}`,
    }),
  // Its signature is checked by the handler, which knows the secret.
  cursor: z
    .string({ error: CURSOR_MALFORMED })
    .regex(CURSOR_TEXT, CURSOR_MALFORMED)
    .optional()
    .meta({ description: 'the X-Next-Cursor of the page before: the events after it' }),
});
