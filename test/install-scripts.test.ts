import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const run = promisify(execFile);

const manifests = [
  'package.json',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  '.npmrc',
  'packages/common/package.json',
  'packages/session-guard/package.json',
  'packages/test-kit/package.json',
  'services/auth/package.json',
  'services/platform/package.json',
];

/*
 * A fresh install of the whole workspace, from its manifests and lockfile alone,
 * as a new clone gets it. The side-effects cache is off, so a script that would
 * run is run (or refused) here rather than replayed from an earlier install.
 */
describe('pnpm install on a fresh clone', () => {
  it('runs no dependency install script: @scarf/scarf (via swagger-ui-dist) is refused', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'install-scripts-'));
    try {
      for (const file of manifests) {
        mkdirSync(join(scratch, dirname(file)), { recursive: true });
        copyFileSync(join(root, file), join(scratch, file));
      }
      const { stdout, stderr } = await run(
        'pnpm',
        [
          'install',
          '--frozen-lockfile',
          '--prefer-offline',
          '--reporter=append-only',
          '--config.side-effects-cache=false',
        ],
        { cwd: scratch, env: { ...process.env, CI: 'true' }, maxBuffer: 16 * 1024 * 1024 },
      );
      const output = stdout + stderr;
      expect(output).not.toMatch(/(preinstall|install|postinstall)\$/);
      expect(output).toMatch(/build scripts that were ignored: .*@scarf\/scarf/);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 180_000);
});
