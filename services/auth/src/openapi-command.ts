import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from './openapi.js';

/** services/auth/openapi.json, from src/ and from dist/ alike. */
const documentFile = fileURLToPath(new URL('../openapi.json', import.meta.url));

writeFileSync(documentFile, `${JSON.stringify(openApiDocument, null, 2)}\n`);
console.log(`wrote ${documentFile}`);
