import { fileURLToPath } from 'node:url';

/** The service's SQL migrations, beside src/ and dist/ alike. */
export const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));
