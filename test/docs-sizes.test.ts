import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const KB = 1000;

/** What a newcomer reads in one sitting, file by file; every document together stays under TOTAL. */
const BUDGETS: Record<string, number> = {
  'README.md': 12 * KB,
  'services/auth/README.md': 16 * KB,
  'services/platform/README.md': 16 * KB,
  'packages/session-guard/README.md': 16 * KB,
  'RELIABILITY.md': 20 * KB,
  'bench/README.md': 12 * KB,
};
// The bound issue 49 sets for every document together.
const TOTAL = 170 * KB;

const markdownFiles = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'],
  { cwd: root, encoding: 'utf8' },
)
  .split('\n')
  .filter((path) => path && !path.includes('node_modules/') && existsSync(join(root, path)));

const bytes = (path: string) => statSync(join(root, path)).size;

describe('documents that fit a sitting', () => {
  it.each(Object.entries(BUDGETS))('%s is at most %d bytes', (path, budget) => {
    expect(markdownFiles).toContain(path);
    expect(bytes(path)).toBeLessThanOrEqual(budget);
  });

  it(`every document together is at most ${TOTAL} bytes`, () => {
    const sizes = Object.fromEntries(markdownFiles.map((path) => [path, bytes(path)]));
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
    expect(total, JSON.stringify(sizes, null, 2)).toBeLessThanOrEqual(TOTAL);
  });

  it('the READMEs quote no commit hashes: git log keeps the history', () => {
    const readmes = markdownFiles.filter((path) => /(^|\/)README\.md$/.test(path));
    for (const path of readmes) {
      const hashes = (
        readFileSync(join(root, path), 'utf8').match(/\b[0-9a-f]{7,40}\b/g) ?? []
      ).filter((word) => /[0-9]/.test(word) && /[a-f]/.test(word));
      expect(hashes, path).toEqual([]);
    }
  });
});

/** A RELIABILITY.md test name as a path: `x` in test/reliability/, `repo/x` in test/, `auth/x` in its service, ... */
function testFiles(name: string): string[] {
  const [, group, file] = /^(?:(\{[\w,]+\}|\w+)\/)?([\w-]+)$/.exec(name) ?? [];
  if (!file) return [name];
  const folders: Record<string, string> = {
    '': 'test/reliability',
    repo: 'test',
    auth: 'services/auth/test',
    platform: 'services/platform/test',
    common: 'packages/common/test',
    guard: 'packages/session-guard/test',
  };
  const groups = group?.startsWith('{') ? group.slice(1, -1).split(',') : [group ?? ''];
  return groups.map((g) => `${folders[g] ?? `unknown group ${g}`}/${file}.test.ts`);
}

describe('RELIABILITY.md', () => {
  const text = readFileSync(join(root, 'RELIABILITY.md'), 'utf8');
  const rows = text
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| ---'))
    .map((line) =>
      line
        .slice(2, -2)
        .split(/ \| /)
        .map((cell) => cell.trim()),
    );

  it('is tables of scenario, promise and test', () => {
    const headers = rows.filter(([first]) => first === 'Scenario');
    expect(headers.length).toBeGreaterThan(0);
    for (const header of headers) expect(header).toEqual(['Scenario', 'Promise', 'Test']);
    for (const row of rows) expect(row, row.join(' | ')).toHaveLength(3);
  });

  it('names in every row a test file that exists', () => {
    let previous: string[] = [];
    for (const [scenario, , test] of rows) {
      if (scenario === 'Scenario') {
        previous = [];
        continue;
      }
      const files = test === 'same' ? previous : testFiles(test as string);
      expect(files, `${scenario}: "${test}"`).not.toEqual([]);
      for (const file of files)
        expect(existsSync(join(root, file)), `${scenario}: ${file}`).toBe(true);
      previous = files;
    }
  });
});
