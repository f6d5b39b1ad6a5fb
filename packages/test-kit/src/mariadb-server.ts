import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort, managed, scratchDir, type TestServer } from './servers.js';

const run = promisify(execFile);

/** Creates the system tables of a new MariaDB in `datadir`: root with an empty password. */
export async function installMariaDb(datadir: string): Promise<void> {
  await run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${datadir}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    '--user=root',
  ]);
}

/**
 * A MariaDB (not yet started) on a loopback `port`, its data in `dir`/data, tuned
 * for tests rather than durability. `options` come last, so they can override.
 */
export function mariaDbServer(dir: string, port: number, options: string[] = []): TestServer {
  const args = [
    '--no-defaults',
    `--datadir=${join(dir, 'data')}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--socket=${join(dir, 'mysqld.sock')}`,
    `--pid-file=${join(dir, 'mysqld.pid')}`,
    `--log-error=${join(dir, 'error.log')}`,
    '--user=root',
    '--skip-log-bin',
    '--skip-name-resolve',
    '--innodb-flush-log-at-trx-commit=0',
    '--innodb-doublewrite=0',
    '--innodb-buffer-pool-size=256M',
    '--max-connections=1000',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_unicode_ci',
    ...options,
  ];
  return managed(
    port,
    `mysql://root@127.0.0.1:${port}`,
    dir,
    () => spawn('mariadbd', args, { stdio: 'ignore' }),
    async () => {
      const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
      await conn.end();
    },
    'mariadbd',
  );
}

/**
 * Starts a throwaway MariaDB (root, empty password) tuned for tests rather
 * than durability; `options` override that (`--innodb-flush-log-at-trx-commit=1`
 * for a server whose commits outlive a kill).
 */
export async function startMariaDbServer(options: string[] = []): Promise<TestServer> {
  const dir = await scratchDir('mariadb-test');
  await installMariaDb(join(dir, 'data'));
  const server = mariaDbServer(dir, await freePort(), options);
  await server.start();
  return server;
}
