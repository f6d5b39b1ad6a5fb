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
  it('walks order complete from the router to the driver call, file by file', () => {
    const walk = section('One platform route');
    expect(filesOf(walk, 'platform')).toEqual([
      'services/platform/src/orders/order.router.ts',
      'services/platform/src/app.ts',
      'services/platform/src/orders/order.handlers.ts',
      'services/platform/src/orders/order.repository.ts',
      'services/platform/src/events/outbox.ts',
      'services/platform/src/db/database.ts',
      'services/platform/src/http/errors.ts',
    ]);
    expect(walk).toContain('`packages/common/src/mysql-database.ts`');
    expect(walk).toContain('`packages/common/src/mysql-driver.ts`');
    expect(compact('services/platform/src/orders/order.router.ts')).toContain(
      ".route('/api/order/complete/:id').put(adminOnly,json,complete).all(onlyPut)",
    );
    expect(compact('services/platform/src/app.ts')).toContain('orderRouter(orders,routerDeps())');
    expect(compact('services/platform/src/orders/order.handlers.ts')).toContain(
      'awaitorders.complete(parseInput(pathId,req.params.id));',
    );
    const repository = read('services/platform/src/orders/order.repository.ts');
    expect(repository).toContain("db.change(statusChange(ORDER_EVENTS, id, 1, 'order.completed'))");
    expect(repository).toContain("throw new NotFoundError('order', id)");
    expect(read('services/platform/src/events/outbox.ts')).toContain('WHERE id = ? FOR UPDATE`');
    expect(compact('services/platform/src/db/database.ts')).toContain(
      'const[locked]=(awaitdb.transaction(statements))asunknown[][];',
    );
    expect(compact('packages/common/src/mysql-database.ts')).toContain(
      "transaction:Database['transaction']=(statements)=>mapped(transactionWithin(pool,queryTimeoutMs,statements))",
    );
    const statements = read('packages/common/src/mysql-driver.ts');
    expect(compact('packages/common/src/mysql-driver.ts')).toContain(
      "'STARTTRANSACTION',...statements.map((statement)=>statement.sql),'COMMIT',",
    );
    expect(statements).toContain('else conn.query({ sql, values, rowsAsArray }, done);');
  });

  it('walks login through files that exist and hold what the walk says', () => {
    const walk = section('One auth route');
    const files = filesOf(walk, 'auth');
    expect(files.slice(0, 2)).toEqual([
      'services/auth/src/users/user.router.ts',
      'services/auth/src/app.ts',
    ]);
    for (const file of files) expect(existsSync(join(root, file)), file).toBe(true);
    expect(files).toContain('services/auth/src/sessions/session.repository.ts');
    expect(compact('services/auth/src/users/user.router.ts')).toContain(
      "router.post('/api/user/login',json,handlers.login)",
    );
    expect(read('services/auth/src/users/user.repository.ts')).toContain(
      'SELECT id, username, password, roles FROM users WHERE username = ?',
    );
    expect(walk).toContain('`packages/session-guard/src/session-store.ts`');
    expect(read('services/auth/src/sessions/session.repository.ts')).toContain(
      'fromRedis(store.create(',
    );
    expect(read('packages/session-guard/src/user-index.ts')).toContain('srandmember(index');
  });

  it('keeps the data layers free of HTTP: no import of http/ from db/, lists/ or a repository', () => {
    const dataFiles = [
      ...tracked('services/platform/src/db'),
      ...tracked('services/platform/src').filter((file) => file.endsWith('.repository.ts')),
      ...tracked('services/auth/src').filter((file) => file.endsWith('.repository.ts')),
    ];
    expect(dataFiles.length).toBeGreaterThan(5);
    for (const file of dataFiles) {
      expect(read(file), file).not.toMatch(/from '\.\.?\/(\.\.\/)?http\//);
      expect(read(file), file).not.toMatch(/AppError|res\.status|Retry-After/);
    }
    for (const file of tracked('services/platform/src/http')) {
      expect(read(file), file).not.toMatch(/from '\.\.\/db\//);
    }
  });

  it('keeps every product file under 200 lines and mysql2 internals in one adapter', () => {
    const product = [
      'packages/common/src',
      'packages/session-guard/src',
      'services/auth/src',
      'services/platform/src',
    ];
    for (const file of product.flatMap(tracked)) {
      expect(read(file).split('\n').length, file).toBeLessThanOrEqual(201);
    }
    const internals = product
      .flatMap(tracked)
      .filter((file) =>
        /_allConnections|_freeConnections|_connectionQueue|\.pool\.pool\b|pool\.pool\./.test(
          read(file),
        ),
      );
    expect(internals).toEqual(['packages/common/src/mysql-driver.ts']);
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
