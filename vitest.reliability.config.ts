import { defineConfig } from 'vitest/config';

/** `pnpm test:reliability`: the long scenarios (real service processes, faults, load, soak). */
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['test/reliability/**/*.test.ts'],
    globalSetup: ['test/reliability/global-setup.ts'],
    // Each file runs real processes under load: one at a time keeps the figures honest.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
