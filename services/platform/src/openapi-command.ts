import { writeFile } from 'node:fs/promises';
import { documentFile, documentText, platformDocument } from './app.js';

await writeFile(documentFile, documentText(platformDocument));
console.log(`wrote ${documentFile}`);
