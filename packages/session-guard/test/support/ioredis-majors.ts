import { createRequire } from 'node:module';
import { Cluster as Cluster5, Redis as Redis5 } from 'ioredis';
import { Cluster as Cluster6, Redis as Redis6 } from 'ioredis6';

const require = createRequire(import.meta.url);
const versionOf = (name: string) =>
  (require(`${name}/package.json`) as { version: string }).version;

interface Address {
  host: string;
  port: number;
}

/** One ioredis major the peer range accepts: its clients, as a host creates them. */
interface IoredisMajor {
  name: string;
  /** The version installed, so a suite can tell it runs on the major it names. */
  version: string;
  redis(url: string): Redis5;
  cluster(nodes: Address[]): Cluster5;
}

// What the README tells hosts: a dead Redis is a quick 503, not a hanging request.
const quick = { maxRetriesPerRequest: 0, commandTimeout: 500 };

/**
 * The guard's suites run once per major (ioredis6 is the npm alias
 * `npm:ioredis@^6`), as `describe.each(IOREDIS_MAJORS)('... %s', (_name, major) => ...)`.
 */
const majors: IoredisMajor[] = [
  {
    name: 'ioredis 5',
    version: versionOf('ioredis'),
    redis: (url) => new Redis5(url, quick),
    cluster: (nodes) => new Cluster5(nodes, { redisOptions: quick }),
  },
  // Both majors in one program are unrelated classes to TypeScript; a host has one
  // of them, and tsconfig.ioredis6.json checks the guard's types against 6.
  {
    name: 'ioredis 6',
    version: versionOf('ioredis6'),
    redis: (url) => new Redis6(url, quick) as unknown as Redis5,
    cluster: (nodes) => new Cluster6(nodes, { redisOptions: quick }) as unknown as Cluster5,
  },
];

export const IOREDIS_MAJORS = majors.map((major) => [major.name, major] as const);
