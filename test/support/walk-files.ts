import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Profiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, messageBody, serve } from '@svc/common';
import type { Express } from 'express';

const root = join(import.meta.dirname, '../..');

/** Product source: what a walk names. Tests, the test kit and node_modules are not. */
const PRODUCT = /^(services\/[\w-]+\/src|packages\/(common|session-guard)\/src)\//;

/**
 * The getter vitest's module runner adds for each export (`export const X` becomes
 * `get: () => { try { return X } catch {} }`): run when another module reads the
 * binding, so a constants-only module would look as if it ran. Node runs no code there.
 */
const EXPORT_GETTER = /^\(\) => \{ try \{ return [\w$.]+ \} catch \{\} \}$/;

/** Sends one request to the app at `base` and returns its answer. */
export type Send = (base: string) => Promise<Response>;

interface Walk {
  /** The files that ran while the request was served, as paths from the repository root, in the order first entered. */
  files: string[];
  status: number;
  body: string;
}

declare global {
  /** Called by the tracing breakpoints (see `entryOrder`) while a walk is traced. */
  var __walkEntered: ((file: string) => void) | undefined;
}

/** A product function of a script that ran, with the script's (transformed) source. */
interface Ran {
  file: string;
  scriptId: string;
  source: string;
  range: Profiler.CoverageRange;
}

/** `app` served as main serves it, on a loopback port of its own. */
async function listening(app: Express): Promise<Server> {
  const { server } = await serve(
    app,
    { PORT: 0, HOST: '127.0.0.1', SEND_IDLE_TIMEOUT_MS: 60_000, METRICS_PORT: 0 },
    { logger: createLogger({ name: 'walk', level: 'silent' }), envelope: messageBody },
  );
  return server;
}

const closing = (server: Server) => new Promise((resolve) => server.close(resolve));

/** Serves one request on `server`; resolves once the response is closed. */
async function serveOne<T>(server: Server, work: (base: string) => Promise<T>): Promise<T> {
  let served = Promise.resolve();
  // The 'finish' listeners (access log, metrics) have run once the response is closed.
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
    served = new Promise((resolve) => res.once('close', () => setImmediate(resolve)));
  };
  server.on('request', onRequest);
  try {
    const result = await work(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await served;
    return result;
  } finally {
    server.off('request', onRequest);
  }
}

/** Serves `send`'s one request untraced (to make a walk's data) and returns its JSON. */
export async function answer<Body>(app: Express, send: Send) {
  const server = await listening(app);
  try {
    return await serveOne(server, async (base) => {
      const res = await send(base);
      return { headers: res.headers, body: (await res.json()) as Body };
    });
  } finally {
    await closing(server);
  }
}

/**
 * The product files that had code executed while `send`'s request was served.
 * V8's precise coverage (call counts per function) is reset just before the
 * request and read once its response is closed, so what ran when the modules
 * were loaded or the app was built does not count. `warmUp`, the same kind of
 * request (by default `send` itself), is served first: the walk is then a
 * running service's (pool connections open, caches filled), and the functions
 * it ran get a breakpoint that never pauses but notes its file, which gives
 * the order in which the walked request first entered each file (a file that
 * the warm-up did not run comes last).
 */
export async function walkFiles(app: Express, send: Send, warmUp: Send = send): Promise<Walk> {
  const server = await listening(app);
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await takeCoverage(session);
    await serveOne(server, async (base) => (await warmUp(base)).arrayBuffer());
    const order = await entryOrder(session, await productRuns(session));
    const { status, body } = await serveOne(server, async (base) => {
      const res = await send(base);
      return { status: res.status, body: await res.text() };
    });
    const files = [...new Set((await productRuns(session)).map((fn) => fn.file))];
    const entered = order.stop();
    const rank = (file: string) => (entered.includes(file) ? entered.indexOf(file) : files.length);
    return { files: files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)), status, body };
  } finally {
    globalThis.__walkEntered = undefined;
    session.disconnect();
    await closing(server);
  }
}

const takeCoverage = (session: Session) => session.post('Profiler.takePreciseCoverage');

/** The product functions that ran since the last coverage taken (export getters left out). */
async function productRuns(session: Session): Promise<Ran[]> {
  const { result } = await takeCoverage(session);
  await session.post('Debugger.enable');
  const runs: Ran[] = [];
  for (const script of result) {
    if (!script.url.startsWith('file:')) continue;
    const file = relative(root, fileURLToPath(script.url));
    const ran = script.functions.map((fn) => fn.ranges[0]!).filter((range) => range.count > 0);
    if (!PRODUCT.test(file) || ran.length === 0) continue;
    const { scriptId } = script;
    const { scriptSource: source } = await session.post('Debugger.getScriptSource', { scriptId });
    for (const range of ran) {
      const text = source.slice(range.startOffset, range.endOffset);
      if (!EXPORT_GETTER.test(text)) runs.push({ file, scriptId, source, range });
    }
  }
  return runs;
}

/** Notes the order in which files are first entered, by a condition-only breakpoint at the start of each function. */
async function entryOrder(session: Session, functions: Ran[]) {
  const entered: string[] = [];
  for (const { file, scriptId, source, range } of functions) {
    const at = (offset: number) => {
      const before = source.slice(0, offset).split('\n');
      return { scriptId, lineNumber: before.length - 1, columnNumber: before.at(-1)!.length };
    };
    const { locations } = await session.post('Debugger.getPossibleBreakpoints', {
      start: at(range.startOffset),
      end: at(range.endOffset),
      restrictToFunction: true,
    });
    if (!locations[0]) continue;
    // The condition is always false: the breakpoint notes the file and never pauses.
    const condition = `globalThis.__walkEntered?.(${JSON.stringify(file)}), false`;
    await session.post('Debugger.setBreakpoint', { location: locations[0], condition });
  }
  globalThis.__walkEntered = (file) => {
    if (!entered.includes(file)) entered.push(file);
  };
  return {
    stop() {
      globalThis.__walkEntered = undefined;
      return entered;
    },
  };
}

/**
 * The product files that had code executed from the start of `walk` to its
 * end, whatever ran them (a request, or the background: the publisher, the
 * stream hub, the deliverer): for what follows a commit. `warmUp`, the same
 * walk, runs first, untraced but for the order in which files are entered.
 * `walk` should run no product code itself: it writes with raw SQL and reads
 * with a client of its own.
 */
export async function walkBackground(walk: () => Promise<void>, warmUp = walk): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await takeCoverage(session);
    await warmUp();
    const order = await entryOrder(session, await productRuns(session));
    await walk();
    const files = [...new Set((await productRuns(session)).map((fn) => fn.file))];
    const entered = order.stop();
    const rank = (file: string) => (entered.includes(file) ? entered.indexOf(file) : files.length);
    return files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  } finally {
    globalThis.__walkEntered = undefined;
    session.disconnect();
  }
}
