import { defineConfig } from 'vitest/config';

/** Checks of the repository itself (deployment files); each package has its own config. */
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: { include: ['test/*.test.ts'] },
});
