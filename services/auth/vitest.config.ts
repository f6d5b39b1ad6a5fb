import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/documented-responses.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
