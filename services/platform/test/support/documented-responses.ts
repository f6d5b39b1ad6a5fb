import { afterAll, expect } from 'vitest';
import { platformOperations } from '../../src/openapi.js';
import { recordedResponses, undocumentedResponses } from './response-recorder.js';

// After every test file: each JSON answer its apps gave fits the document.
afterAll(() => {
  expect(undocumentedResponses(platformOperations, recordedResponses())).toEqual([]);
});
