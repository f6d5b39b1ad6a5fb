import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const markdownFiles = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter((path) => path && !path.includes('node_modules/') && existsSync(join(root, path)));

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (path: string) =>
  new Set(
    [...readFileSync(path, 'utf8').matchAll(/^#+ (.+)$/gm)].map((match) =>
      anchorOf(match[1] as string),
    ),
  );

/** Relative targets of inline links and images, outside fenced code. */
function linksIn(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe('the repository stands on its own', () => {
  it('has the documents the README promises', () => {
    for (const path of ['docs/README.md', 'docs/auth.md', 'docs/platform.md']) {
      expect(markdownFiles).toContain(path);
    }
  });

  it.each(markdownFiles)('%s: every relative link resolves inside the repository', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    for (const target of linksIn(text)) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path ? join(root, dirname(file), decodeURI(path)) : join(root, file);
      expect(
        relative(root, resolved),
        `${file} links to ${target}, outside the repository`,
      ).not.toMatch(/^\.\./);
      expect(existsSync(resolved), `${file} links to ${target}, which does not exist`).toBe(true);
      if (anchor && statSync(resolved).isFile() && resolved.endsWith('.md')) {
        expect(anchorsOf(resolved), `${file} links to #${anchor} in ${path || file}`).toContain(
          anchor,
        );
      }
    }
  });

  it.each(markdownFiles)('%s: sends no reader to the shared folder outside it', (file) => {
    expect(readFileSync(join(root, file), 'utf8')).not.toMatch(/\bshared\/(seeds|CONTRACT)/);
  });
});
