import { writeFile } from 'node:fs/promises';
import { documentFile, documentText, platformDocument } from './openapi.js';

await writeFile(documentFile, documentText(platformDocument));
console.log(`wrote ${documentFile}`);
