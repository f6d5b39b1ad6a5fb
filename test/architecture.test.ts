import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const architecture = read('docs/ARCHITECTURE.md');

/** A walk's section of ARCHITECTURE.md, by the words of its heading. */
function section(heading: string): string {
  const start = architecture.indexOf(`## ${heading}`);
  if (start === -1) throw new Error(`no section "${heading}"`);
  const end = architecture.indexOf('\n## ', start + 1);
  return architecture.slice(start, end === -1 ? undefined : end);
}

/** The `src/…` files a walk names, in order, as paths from the repository root. */
const filesOf = (walk: string, service: string) =>
  [...walk.matchAll(/`(src\/[\w./-]+\.ts)`/g)].map((match) => `services/${service}/${match[1]}`);

/** Source files of a package, without whitespace, so formatting never hides a fact. */
const compact = (path: string) => read(path).replace(/\s+/g, '');

const tracked = (dir: string) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', dir], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path.endsWith('.ts') && existsSync(join(root, path)));

describe('docs/ARCHITECTURE.md', () => {
  it('walks order complete through files that exist and hold what the walk says', () => {
    const walk = section('One platform route');
    const files = filesOf(walk, 'platform');
    expect(files).toEqual([
      'services/platform/src/app.ts',
      'services/platform/src/orders/order.router.ts',
      'services/platform/src/orders/order.repository.ts',
    ]);
    expect(compact(files[0] as string)).toContain(
      'constorders=orderRepository(db,keys,{insertConcurrency:deps.insertConcurrency});',
    );
    expect(compact(files[0] as string)).toContain('orderRouter(orders,routerDeps())');
    expect(compact(files[1] as string)).toContain(
      ".route('/api/order/complete/:id').put(adminOnly,json,complete).all(onlyPut)",
    );
    expect(read(files[2] as string)).toContain('UPDATE orders SET status = 1 WHERE id = ?');
    expect(read(files[2] as string)).toContain("throw new NotFoundError('order', id)");
  });

  it('walks login through files that exist and hold what the walk says', () => {
    const files = filesOf(section('One auth route'), 'auth');
    for (const file of files) expect(existsSync(join(root, file)), file).toBe(true);
    expect(compact('services/auth/src/users/user.router.ts')).toContain(
      "router.post('/api/user/login',json,handlers.login)",
    );
    expect(read('services/auth/src/users/user.repository.ts')).toContain(
      'SELECT id, username, password, roles FROM users WHERE username = ?',
    );
  });

  it('holds for the code: no state parked on res.locals, errors answered in http/errors.ts', () => {
    for (const file of [...tracked('services/platform/src'), ...tracked('services/auth/src')]) {
      expect(read(file), file).not.toContain('res.locals');
    }
    for (const service of ['auth', 'platform']) {
      const answering = tracked(`services/${service}/src`).filter((file) =>
        /ErrorRequestHandler/.test(read(file)),
      );
      expect(answering, service).toEqual([`services/${service}/src/http/errors.ts`]);
    }
  });

  it('keeps common free of either spec: no Chinese text and no envelope', () => {
    for (const file of tracked('packages/common/src')) {
      expect(read(file), file).not.toMatch(/\p{Script=Han}/u);
      expect(read(file), file).not.toMatch(/messageBody|msgBody|Envelope\b|renderFailure/);
    }
  });
});
