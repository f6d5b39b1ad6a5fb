import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@svc/test-kit';

export interface Balancer {
  /** The balancer's address for each upstream, by name. */
  urls: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Runs nginx (the Debian package; scripts/dev-services.sh installs it) in the
 * foreground with a configuration of its own in a temporary directory: one
 * round-robin upstream per name, each behind its own free loopback port.
 */
export async function startNginx(upstreams: Record<string, string[]>): Promise<Balancer> {
  const dir = await mkdtemp(join(tmpdir(), 'nginx-test-'));
  const urls: Record<string, string> = {};
  const blocks: string[] = [];
  for (const [name, servers] of Object.entries(upstreams)) {
    const port = await freePort();
    urls[name] = `http://127.0.0.1:${port}`;
    blocks.push(
      `upstream ${name} {`,
      ...servers.map((url) => `  server ${new URL(url).host};`),
      '}',
      'server {',
      `  listen 127.0.0.1:${port};`,
      '  location / {',
      `    proxy_pass http://${name};`,
      '    proxy_set_header Host $host;',
      '    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      '  }',
      '}',
    );
  }
  const probes = Object.values(urls).map((url) => `${url}/healthz`);
  return runNginx(dir, blocks, probes, urls);
}

/**
 * Runs nginx in the foreground in `dir` with `httpBlock` (lines inside `http { }`),
 * and waits until every probe URL answers below 500.
 */
export async function runNginx(
  dir: string,
  httpBlock: string[],
  probes: string[],
  urls: Record<string, string> = {},
): Promise<Balancer> {
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    await mkdir(join(dir, temp), { recursive: true });
  }
  const conf = [
    'daemon off;',
    'worker_processes 1;',
    // Workers of a root master would switch to nobody, who cannot use this directory.
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 512; }',
    'http {',
    `  access_log ${dir}/access.log;`,
    `  client_body_temp_path ${dir}/body;`,
    `  proxy_temp_path ${dir}/proxy;`,
    `  fastcgi_temp_path ${dir}/fastcgi;`,
    `  uwsgi_temp_path ${dir}/uwsgi;`,
    `  scgi_temp_path ${dir}/scgi;`,
    ...httpBlock.map((line) => `  ${line}`),
    '}',
    '',
  ].join('\n');
  const confPath = join(dir, 'nginx.conf');
  await writeFile(confPath, conf);
  const child: ChildProcess = spawn(
    'nginx',
    ['-c', confPath, '-p', dir, '-e', `${dir}/error.log`],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 10_000;
  for (const url of probes) {
    for (;;) {
      if (child.exitCode !== null) {
        const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
        throw new Error(`nginx exited with code ${child.exitCode}:\n${log}`);
      }
      const up = await fetch(url)
        .then((res) => res.status < 500)
        .catch(() => false);
      if (up) break;
      if (Date.now() > deadline) throw new Error(`nginx did not answer on ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    urls,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
