import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const shippedMajor = read('.node-version').trim();

describe('the Node.js we ship', () => {
  it('is a current LTS major, named once in .node-version', () => {
    expect(shippedMajor).toMatch(/^\d+$/);
    expect(Number(shippedMajor)).toBeGreaterThanOrEqual(24);
  });

  it.each(['services/auth/Dockerfile', 'services/platform/Dockerfile'])(
    '%s builds and runs on it',
    (dockerfile) => {
      const images = [...read(dockerfile).matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
      expect(images.length).toBeGreaterThanOrEqual(2);
      for (const image of images) expect(image).toBe(`node:${shippedMajor}-bookworm-slim`);
    },
  );

  it('is accepted by engines, and Node 20 (past its end of life) is not', () => {
    const engines: string = JSON.parse(read('package.json')).engines.node;
    expect(engines).toBe('^22.12.0 || >=24');
    expect(engines).not.toMatch(/\b20\b/);
  });

  it('is what scripts/shipped-node.sh puts first on PATH for CI', () => {
    const bin = execFileSync('bash', [join(root, 'scripts/shipped-node.sh')], {
      encoding: 'utf8',
    }).trim();
    const version = execFileSync(join(bin, 'node'), ['-v'], { encoding: 'utf8' }).trim();
    expect(version).toMatch(new RegExp(`^v${shippedMajor}\\.`));
  }, 120_000);

  it("CI's compatibility run is on the oldest major engines accepts, fetched like the shipped one", () => {
    const majors = [...read('.ci/run').matchAll(/scripts\/shipped-node\.sh (\d+)/g)].map(
      (m) => m[1],
    );
    expect(majors).toEqual(['22']);
    const bin = execFileSync('bash', [join(root, 'scripts/shipped-node.sh'), '22'], {
      encoding: 'utf8',
    }).trim();
    const [major, minor] = execFileSync(join(bin, 'node'), ['-p', 'process.versions.node'], {
      encoding: 'utf8',
    })
      .trim()
      .split('.')
      .map(Number);
    // engines: ^22.12.0
    expect(major).toBe(22);
    expect(minor).toBeGreaterThanOrEqual(12);
  }, 120_000);
});
