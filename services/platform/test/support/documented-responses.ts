import { recordedResponses, undocumentedResponses } from '@svc/test-kit';
import { afterAll, expect } from 'vitest';
import { notFoundBody } from '../../src/http/docs/reply-schemas.js';
import { platformOperations } from '../../src/openapi.js';

// After every test file: each JSON answer its apps gave fits the document.
afterAll(() => {
  expect(undocumentedResponses(recordedResponses(), platformOperations, notFoundBody)).toEqual([]);
});
