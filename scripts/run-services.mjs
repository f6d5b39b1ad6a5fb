#!/usr/bin/env node
// `pnpm start`, `pnpm dev`, `pnpm migrate`, `pnpm seed`: one command of both
// services, side by side, each with its own settings.
//
// Every variable of the environment reaches both services, except PORT and
// MYSQL_DATABASE, which two services can never share. A variable prefixed with
// AUTH_ or PLATFORM_ is given to that service alone, without its prefix (and
// overrides the shared one): AUTH_PORT=3000 PLATFORM_PORT=8080
// PLATFORM_MYSQL_DATABASE=platform_dev ... Below both come the service's own
// `.env` file (services/<name>/.env, made from its .env.example), when there is one.
//
// start and dev run until Ctrl-C (or SIGTERM), which reaches each service once;
// they shut down gracefully, and this exits 0 when both did, non-zero when either
// failed. migrate and seed run once in each service and exit.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

const root = join(import.meta.dirname, '..');
const mode = process.argv[2];
const commands = {
  start: [process.execPath, ['dist/main.js']],
  dev: [join(root, 'node_modules/.bin/tsx'), ['watch', '--conditions=source', 'src/main.ts']],
  migrate: [process.execPath, ['dist/migrate-command.js']],
  seed: [process.execPath, ['dist/seed-command.js']],
};
if (!(mode in commands)) {
  process.stderr.write('usage: run-services.mjs start|dev|migrate|seed\n');
  process.exit(2);
}
const serving = mode === 'start' || mode === 'dev';

const services = ['auth', 'platform'];
const unshared = ['PORT', 'MYSQL_DATABASE'];

/** The services write to our pipe: a person at our terminal still gets readable, coloured lines. */
function terminalDefaults() {
  if (!process.stdout.isTTY) return {};
  return process.env.NO_COLOR
    ? { LOG_FORMAT: 'pretty' }
    : { LOG_FORMAT: 'pretty', FORCE_COLOR: '1' };
}

function envFileOf(service) {
  const path = join(root, 'services', service, '.env');
  return existsSync(path) ? parseEnv(readFileSync(path, 'utf8')) : {};
}

function envFor(service) {
  const prefix = `${service.toUpperCase()}_`;
  const env = { ...terminalDefaults(), ...envFileOf(service) };
  for (const [name, value] of Object.entries(process.env)) {
    if (!unshared.includes(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith(prefix)) env[name.slice(prefix.length)] = value;
  }
  return env;
}

function prefixLines(stream, target, label) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) target.write(`${label} ${line}\n`);
  });
  stream.on('end', () => rest && target.write(`${label} ${rest}\n`));
}

const [command, args] = commands[mode];
const children = services.map((service) => {
  // Own process group: a terminal's Ctrl-C reaches the service only through us, once.
  const child = spawn(command, args, {
    cwd: join(root, 'services', service),
    env: envFor(service),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prefixLines(child.stdout, process.stdout, `${service} |`);
  prefixLines(child.stderr, process.stderr, `${service} |`);
  return new Promise((resolve) => {
    child.once('error', (err) => {
      process.stderr.write(`${service} | could not start ${command}: ${err.message}\n`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    const stop = (signal) => child.exitCode === null && child.kill(signal);
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
});

// One service failing to start ends the other too: half a stack helps nobody.
// A one-off command (migrate, seed) is left to finish its own work.
if (serving) {
  for (const exited of children) {
    exited.then((code) => code !== 0 && process.emit('SIGTERM'));
  }
}
const codes = await Promise.all(children);
process.exit(codes.every((code) => code === 0) ? 0 : 1);
