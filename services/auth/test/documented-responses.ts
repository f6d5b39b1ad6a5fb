import { afterAll, expect } from 'vitest';
import { authOperations } from '../src/openapi.js';
import { recordedResponses, undocumentedResponses } from './response-recorder.js';

// Every answer the test file's apps gave must be one the OpenAPI document describes.
afterAll(() => {
  expect(undocumentedResponses(recordedResponses(), authOperations)).toEqual([]);
});
