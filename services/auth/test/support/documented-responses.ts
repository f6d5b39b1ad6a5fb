import { recordedResponses, undocumentedResponses } from '@svc/test-kit';
import { afterAll, expect } from 'vitest';
import { notFoundBody } from '../../src/api-docs/responses.docs.js';
import { authOperations } from '../../src/openapi.js';

// Every answer the test file's apps gave must be one the OpenAPI document describes.
afterAll(() => {
  expect(undocumentedResponses(recordedResponses(), authOperations, notFoundBody)).toEqual([]);
});
