/**
 * `pnpm bench:cost`: where one order create's CPU goes, in our process and in
 * the old server's. Each runs under the create load with V8's CPU profiler
 * while /proc counts its CPU time; every profile sample is given to the layer
 * of the innermost frame that names one, and each layer's share of the busy
 * samples is turned into µs with the CPU per request counted meanwhile.
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mysqlVariables } from '@svc/test-kit';
import { load } from './lib/load.js';
import { mysqldCpu } from './lib/mysqld.js';
import { mysqlServerFrom, trimOrders } from './lib/platform-data.js';
import { progress } from './lib/report.js';
import { type RunningServer, repoRoot, startServer } from './lib/server.js';
import { benchSettings } from './lib/settings.js';
import { ensureBothData } from './scenarios/platform-lists.js';

interface CallFrame {
  functionName: string;
  url: string;
}

interface Profile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The layers, each recognised by its frames: the first test that matches a
 * frame, from the sample's own frame outwards, names the layer.
 */
const LAYERS: [layer: string, test: (frame: CallFrame) => boolean][] = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['request id', (f) => f.functionName === 'requestIdFrom' || f.functionName === 'randomUUID'],
  ['access log line (make and write)', (f) => /request-logger|\/pino@|sonic-boom/.test(f.url)],
  ['metrics', (f) => /common\/(dist|src)\/metrics|prom-client/.test(f.url)],
  ['CORS', (f) => /\/cors@/.test(f.url)],
  [
    'body parsing (jsonBodyParser, express.json)',
    (f) =>
      /common\/(dist|src)\/json-body|body-parser|raw-body|type-is|content-type@|iconv/.test(f.url),
  ],
  [
    'Idempotency-Key (header, hash, in flight)',
    (f) =>
      /^(requestKey|requestHash|canonicalJson|once)$/.test(f.functionName) &&
      /input\/parse\.|db\/kept-keys\./.test(f.url),
  ],
  ['validation (zod)', (f) => /\/zod@|input\/parse\./.test(f.url)],
  [
    'shared INSERT (the batcher, our database layer)',
    (f) => /db\/(kept-keys|database)\.|common\/(dist|src)\/mysql-/.test(f.url),
  ],
  [
    'MySQL driver and its socket writes (mysql2)',
    (f) => /\/mysql2@|sql-escaper|lru\.min|denque|named-placeholders/.test(f.url),
  ],
  [
    'the answer (res.json, headers, socket write)',
    (f) =>
      /express@[^/]+\/.*\/response\.js|_http_outgoing|^node:net$/.test(f.url) ||
      f.functionName === 'writeUtf8String',
  ],
  [
    'HTTP request parsing and events (Node)',
    (f) => /_http_server|_http_common|_http_incoming/.test(f.url),
  ],
  [
    'Express and the router',
    (f) => /\/express@|\/router@|path-to-regexp|finalhandler|\/debug@/.test(f.url),
  ],
  [
    'the handler (router file, repository)',
    (f) => /services\/platform\/(dist|src)\/orders\//.test(f.url) || /legacy-platform/.test(f.url),
  ],
];
const OTHER = 'other (promises, timers, stream plumbing, Node internals)';

/** µs of CPU per request by layer, from one profile and the CPU per request counted meanwhile. */
function layersOf(profile: Profile, cpuUsPerRequest: number): Map<string, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const layerOf = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    if (layerOf.has(id)) return layerOf.get(id) as string | null;
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(root)') return null;
    if (node.callFrame.functionName === '(idle)') return 'idle';
    const own = LAYERS.find(([, test]) => test(node.callFrame))?.[0];
    const found = own ?? (parent.has(id) ? classify(parent.get(id) as number) : null);
    layerOf.set(id, found);
    return found;
  };
  const time = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const layer = classify(id) ?? OTHER;
    if (layer === 'idle') return;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    time.set(layer, (time.get(layer) ?? 0) + dt);
  });
  return new Map([...time].map(([layer, t]) => [layer, (t / busy) * cpuUsPerRequest]));
}

const BODY = JSON.stringify({ service_id: 7, user_name: '压测用户', user_phone: '13900000000' });

interface Costs {
  cpuUs: number;
  dbCpuUs: number;
  layers: Map<string, number>;
}

async function profiled(
  name: string,
  start: (dir: string) => Promise<RunningServer>,
  keyed: boolean,
): Promise<Costs> {
  const dir = await mkdtemp(join(tmpdir(), `cost-${name}-`));
  const server = await start(dir);
  try {
    const request = {
      url: `${server.url}/api/order/create`,
      connections: 32,
      method: 'POST' as const,
      body: BODY,
      uniqueHeader: keyed ? 'idempotency-key' : undefined,
    };
    await load({ ...request, duration: 2 });
    const [before, dbBefore] = [await server.cpuSeconds(), await dbCpu()];
    const result = await load({ ...request, duration: seconds });
    const [after, dbAfter] = [await server.cpuSeconds(), await dbCpu()];
    const perRequest = (cpu: number) => (cpu * 1e6) / result.requests;
    // The profile is written when the process exits.
    await server.stop();
    const [file] = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile'));
    const profile = JSON.parse(await readFile(join(dir, file as string), 'utf8')) as Profile;
    const cpuUs = perRequest(after - before);
    return { cpuUs, dbCpuUs: perRequest(dbAfter - dbBefore), layers: layersOf(profile, cpuUs) };
  } finally {
    await server.stop();
  }
}

const settings = benchSettings(process.argv.slice(2));
const server = mysqlServerFrom(settings.mysqlUrl);
const databases = await ensureBothData(server);
const dbCpu = await mysqldCpu(server);
const seconds = settings.quick ? 3 : 10;
// V8 writes the profile when the process exits normally; the old server has no
// SIGTERM handler of its own, so one is preloaded that exits.
const EXIT_ON_SIGTERM = `data:text/javascript,process.on('SIGTERM',()=>process.exit(0))`;
const profiling = (dir: string) => ({
  NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir} --import=${EXIT_ON_SIGTERM}`,
});
const platform = (dir: string) =>
  startServer({
    script: join(repoRoot, 'services/platform/dist/main.js'),
    env: { ...mysqlVariables({ ...server, database: databases.ours }), ...profiling(dir) },
  });

progress("profiling our order create, plain and with an Idempotency-Key, and the old server's");
const ours = await profiled('ours', platform, false);
const keyed = await profiled('keyed', platform, true);
const old = await profiled(
  'old',
  (dir) =>
    startServer({
      script: join(repoRoot, 'bench/apps/legacy-platform.ts'),
      typescript: true,
      env: { ...mysqlVariables({ ...server, database: databases.legacy }), ...profiling(dir) },
    }),
  false,
);
await trimOrders(server, databases.ours, 100_000);
await trimOrders(server, databases.legacy, 100_000);

const layers = [...LAYERS.map(([layer]) => layer), OTHER];
const cell = (value: number | undefined) => (value ? value.toFixed(1) : '-');
process.stdout.write('| layer | ours, µs | ours keyed, µs | old server, µs |\n|---|---|---|---|\n');
for (const layer of layers) {
  process.stdout.write(
    `| ${layer} | ${cell(ours.layers.get(layer))} | ${cell(keyed.layers.get(layer))} | ${cell(old.layers.get(layer))} |\n`,
  );
}
const total = (costs: Costs) => `**${costs.cpuUs.toFixed(1)}**`;
process.stdout.write(
  `| **CPU per order, the process (/proc)** | ${total(ours)} | ${total(keyed)} | ${total(old)} |\n`,
);
process.stdout.write(
  `| mysqld's CPU per order meanwhile | ${cell(ours.dbCpuUs)} | ${cell(keyed.dbCpuUs)} | ${cell(old.dbCpuUs)} |\n`,
);
