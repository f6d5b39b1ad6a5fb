import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const manifest = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));

/** The workspace's packages (pnpm-workspace.yaml: services/* and packages/*). */
const workspace = ['packages', 'services'].flatMap((group) =>
  readdirSync(join(root, group)).map((name) => `${group}/${name}`),
);

/*
 * `pnpm build` is one `tsc -b` over every package (five `pnpm -r` processes
 * cost the quick start's second `./run start` a second): this keeps its list
 * whole and in an order where each package comes after those it imports.
 */
describe('the root build', () => {
  it('compiles every workspace package, each after the workspace packages it depends on', () => {
    const built = (manifest('.').scripts.build as string)
      .replace(/^tsc -b /, '')
      .split(' ')
      .map((config) => config.replace(/\/tsconfig\.build\.json$/, ''));
    expect([...built].sort()).toEqual(
      workspace
        .filter((dir) => manifest(dir).scripts?.build === 'tsc -b tsconfig.build.json')
        .sort(),
    );
    const nameOf = (dir: string) => manifest(dir).name as string;
    for (const [i, dir] of built.entries()) {
      const { dependencies = {}, devDependencies = {} } = manifest(dir);
      const before = new Set(built.slice(0, i).map(nameOf));
      for (const name of Object.keys({ ...dependencies, ...devDependencies })) {
        if (name.startsWith('@svc/')) expect(before, `${dir} needs ${name} first`).toContain(name);
      }
    }
  });
});
