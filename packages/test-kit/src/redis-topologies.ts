import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { askRedis, freePort } from './servers.js';
import type { RedisAddress } from './settings.js';

const run = promisify(execFile);
const STARTUP_TIMEOUT_MS = 30_000;

async function scratchDir(name: string): Promise<string> {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  return mkdtemp(join(base, `${name}-`));
}

async function poll<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: timed out (${String(last ?? 'no answer')})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Process {
  port: number;
  child: ChildProcess;
}

function launch(port: number, args: string[]): Process {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  return { port, child };
}

async function kill(processes: Process[]): Promise<void> {
  await Promise.all(
    processes.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }),
  );
}

function killOnExit(processes: () => Process[]): () => void {
  const handler = () => {
    for (const { child } of processes()) child.kill('SIGKILL');
  };
  process.once('exit', handler);
  return () => process.off('exit', handler);
}

export interface TestRedisCluster {
  /** The masters, each owning a third of the hash slots. */
  readonly nodes: RedisAddress[];
  /** `REDIS_CLUSTER_NODES` for a service process. */
  readonly variable: string;
  destroy(): Promise<void>;
}

/** Tries of a cluster's start-up, each on fresh ports. */
const CLUSTER_TRIES = 2;

/**
 * Starts three redis-server masters with cluster mode on free loopback ports
 * (client and bus ports both chosen free), joins them with `redis-cli --cluster
 * create`, and waits until every node reports cluster_state:ok. A port found
 * free can be taken by another process before its node binds it (the suites
 * run in parallel), so a start that does not come up is made once more on
 * other ports.
 */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await clusterOnFreePorts();
    } catch (err) {
      if (attempt >= CLUSTER_TRIES) throw err;
    }
  }
}

async function clusterOnFreePorts(): Promise<TestRedisCluster> {
  const dir = await scratchDir('redis-cluster');
  const processes: Process[] = [];
  const forget = killOnExit(() => processes);
  const destroy = async () => {
    forget();
    await kill(processes);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const busPort = await freePort();
      const nodeDir = join(dir, String(port));
      await run('mkdir', ['-p', nodeDir]);
      const args = ['--port', String(port), '--cluster-port', String(busPort)];
      args.push('--bind', '127.0.0.1', '--cluster-enabled', 'yes');
      args.push('--cluster-config-file', join(nodeDir, 'nodes.conf'));
      args.push('--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no');
      args.push('--dir', nodeDir, '--daemonize', 'no', '--loglevel', 'warning');
      processes.push(launch(port, args));
    }
    for (const { port } of processes)
      await poll(() => askRedis(port, 'PING'), `redis node ${port}`);
    const addresses = processes.map(({ port }) => `127.0.0.1:${port}`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...addresses,
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const { port } of processes) {
      await poll(async () => {
        const info = String(await askRedis(port, 'CLUSTER', 'INFO'));
        if (info.includes('cluster_state:ok') && info.includes('cluster_known_nodes:3'))
          return true;
        throw new Error(info.split(/\r?\n/).slice(0, 6).join(' '));
      }, `cluster state on ${port}`);
    }
  } catch (err) {
    await destroy();
    throw err;
  }
  return {
    nodes: processes.map(({ port }) => ({ host: '127.0.0.1', port })),
    variable: processes.map(({ port }) => `127.0.0.1:${port}`).join(','),
    destroy,
  };
}

export interface TestRedisSentinel {
  /** The name the sentinels monitor the primary under (`REDIS_SENTINEL_NAME`). */
  readonly name: string;
  readonly sentinels: RedisAddress[];
  /** `REDIS_SENTINELS` for a service process. */
  readonly variable: string;
  /** The data nodes' ports, primary first as started. */
  readonly dataPorts: number[];
  /** The port of the current primary, as the sentinels report it. */
  primaryPort(): Promise<number>;
  /** Blocks until the replicas have every write the primary acknowledged. */
  sync(): Promise<void>;
  /**
   * `SENTINEL FAILOVER <name>`: promotes the replica; resolves with its port once the
   * sentinels name it and the old primary has become its replica.
   */
  failover(): Promise<number>;
  /** Freezes (SIGSTOP) or ends (SIGKILL) the current primary's process; returns its port. */
  stopPrimary(how?: 'pause' | 'kill'): Promise<number>;
  /** Waits until the sentinels name a primary other than `port`; returns the new one. */
  waitForPrimaryOtherThan(port: number): Promise<number>;
  destroy(): Promise<void>;
}

/**
 * Starts a primary, one replica and `sentinels` (default 3) sentinels with a
 * quorum of a majority, all on free loopback ports, with a short down-after
 * (1 s), so a failover takes a few seconds.
 */
export async function startRedisSentinel(
  options: { sentinels?: number; name?: string } = {},
): Promise<TestRedisSentinel> {
  const name = options.name ?? 'main';
  const count = options.sentinels ?? 3;
  const dir = await scratchDir('redis-sentinel');
  const data: Process[] = [];
  const sentinels: Process[] = [];
  const all = () => [...data, ...sentinels];
  const forget = killOnExit(all);
  const destroy = async () => {
    forget();
    for (const { child } of all()) child.kill('SIGCONT');
    await kill(all());
    await rm(dir, { recursive: true, force: true });
  };
  const primaryPort = async () => {
    for (const { port } of sentinels) {
      try {
        const reply = (await askRedis(
          port,
          'SENTINEL',
          'GET-MASTER-ADDR-BY-NAME',
          name,
        )) as string[];
        if (reply?.[1]) return Number(reply[1]);
      } catch {
        // the next sentinel may answer
      }
    }
    throw new Error('no sentinel names a primary');
  };
  const waitForPrimaryOtherThan = (port: number) =>
    poll(async () => {
      const current = await primaryPort();
      if (current === port) return undefined;
      const role = (await askRedis(current, 'ROLE')) as unknown[];
      return role[0] === 'master' ? current : undefined;
    }, 'failover');
  try {
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', ''];
      args.push('--appendonly', 'no', '--dir', dir, '--dbfilename', `dump-${port}.rdb`);
      args.push('--daemonize', 'no', '--loglevel', 'warning');
      if (i === 1) args.push('--replicaof', '127.0.0.1', String(data[0]?.port));
      data.push(launch(port, args));
    }
    for (const { port } of data) await poll(() => askRedis(port, 'PING'), `redis node ${port}`);
    const [primary, replica] = data as [Process, Process];
    await poll(async () => {
      const info = String(await askRedis(replica.port, 'INFO', 'replication'));
      return info.includes('master_link_status:up') ? true : undefined;
    }, 'replication link');
    const quorum = Math.floor(count / 2) + 1;
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${primary.port} ${quorum}`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(launch(port, [conf, '--sentinel']));
    }
    for (const { port } of sentinels) {
      await poll(async () => {
        const replicas = (await askRedis(port, 'SENTINEL', 'REPLICAS', name)) as unknown[];
        const peers = (await askRedis(port, 'SENTINEL', 'SENTINELS', name)) as unknown[];
        return replicas.length === 1 && peers.length === count - 1 ? true : undefined;
      }, `sentinel ${port}`);
    }
  } catch (err) {
    await destroy();
    throw err;
  }
  const processOn = (port: number) => data.find((node) => node.port === port);
  return {
    name,
    sentinels: sentinels.map(({ port }) => ({ host: '127.0.0.1', port })),
    variable: sentinels.map(({ port }) => `127.0.0.1:${port}`).join(','),
    dataPorts: data.map(({ port }) => port),
    primaryPort,
    async sync() {
      await askRedis(await primaryPort(), 'WAIT', '1', '5000');
    },
    async failover() {
      const before = await primaryPort();
      await askRedis(sentinels[0]?.port as number, 'SENTINEL', 'FAILOVER', name);
      const after = await waitForPrimaryOtherThan(before);
      await poll(async () => {
        const role = (await askRedis(before, 'ROLE')) as unknown[];
        return role[0] === 'slave' && role[2] === after ? true : undefined;
      }, 'old primary demoted');
      return after;
    },
    async stopPrimary(how = 'pause') {
      const port = await primaryPort();
      processOn(port)?.child.kill(how === 'pause' ? 'SIGSTOP' : 'SIGKILL');
      return port;
    },
    waitForPrimaryOtherThan,
    destroy,
  };
}
