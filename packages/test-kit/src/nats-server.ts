import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, managed, scratchDir, type TestServer } from './servers.js';

/** Resolves once a NATS server on this loopback port greets a client with its INFO line. */
function greets(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const end = (err?: Error) => {
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.setTimeout(1000, () => end(new Error('no INFO from nats-server')));
    socket.once('error', end);
    socket.once('data', (data) =>
      data.toString().startsWith('INFO') ? end() : end(new Error('not a NATS greeting')),
    );
  });
}

/**
 * Starts a throwaway `nats-server` with JetStream on a free loopback port,
 * its store in a directory of its own, which stays across a stop or a kill
 * (so a restarted server has its streams) and goes with destroy.
 */
export async function startNatsServer(): Promise<TestServer> {
  const port = await freePort();
  const dir = await scratchDir('nats-test');
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'jetstream')];
  const server = managed(
    port,
    `nats://127.0.0.1:${port}`,
    dir,
    // Debian installs it in /usr/sbin, which a user's PATH may lack.
    () =>
      spawn('nats-server', args, {
        stdio: 'ignore',
        env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` },
      }),
    () => greets(port),
    'nats-server',
  );
  await server.start();
  return server;
}
