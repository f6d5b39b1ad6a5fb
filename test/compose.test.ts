import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '@svc/common';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema as authConfig } from '../services/auth/src/config.js';
import { configSchema as platformConfig } from '../services/platform/src/config.js';

const root = join(import.meta.dirname, '..');
const run = promisify(execFile);
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface ComposeService {
  profiles?: string[];
  stop_grace_period?: string;
  networks?: Record<string, { ipv4_address?: string }>;
  deploy?: { replicas?: number };
  volumes?: string[];
  image?: string;
  command?: string[];
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string | number>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}
/** Compose's `${VAR:-default}` as an empty environment gives it. */
const interpolate = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

const compose = parse(read('docker-compose.yml')) as {
  services: Record<string, ComposeService>;
  networks?: Record<string, { ipam?: { config?: { subnet: string }[] } }>;
  volumes?: Record<string, unknown>;
};
const { services } = compose;
const seconds = (duration: string) => {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`not a compose duration: ${duration}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60 }[match[2] as 'ms' | 's' | 'm'];
};

const apps = [
  { name: 'auth', port: 3000, schema: authConfig, stores: ['redis', 'mysql'], database: 'judge' },
  {
    name: 'platform',
    port: 8080,
    schema: platformConfig,
    stores: ['mysql', 'nats'],
    database: 'life_service',
  },
];
const initScript = read('deploy/mysql/init/01-service-users.sh');

describe('docker-compose.yml', () => {
  it('mysql runs deploy/mysql/init on its first start, where both service users are made', () => {
    expect(services.mysql?.volumes).toContain('./deploy/mysql/init:/docker-entrypoint-initdb.d:ro');
    expect(statSync(join(root, 'deploy/mysql/init/01-service-users.sh')).mode & 0o111).not.toBe(0);
  });

  it('runs redis 7 and mysql 8.4 with health checks', () => {
    expect(services.redis?.image).toMatch(/^redis:7/);
    expect(services.mysql?.image).toMatch(/^mysql:8\.4/);
    expect(services.redis?.healthcheck?.test.join(' ')).toContain('redis-cli ping');
    expect(services.mysql?.healthcheck?.test.join(' ')).toContain('mysqladmin ping');
  });

  it('runs NATS 2.10 with JetStream on a volume, healthy once JetStream is, and the platform relays to it', () => {
    expect(services.nats?.image).toMatch(/^nats:2\.10/);
    expect(services.nats?.command).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
    expect(services.nats?.volumes).toContain('nats-data:/data');
    expect(compose.volumes).toHaveProperty('nats-data');
    expect(services.nats?.healthcheck?.test.join(' ')).toContain('healthz?js-enabled-only=true');
    for (const name of ['platform', 'platform-scaled']) {
      const url = interpolate(String(services[name]?.environment?.EVENTS_NATS_URL));
      expect(url).toBe('nats://nats:4222');
      expect(services[name]?.depends_on?.nats).toEqual({ condition: 'service_healthy' });
    }
  });

  for (const app of apps) {
    describe(app.name, () => {
      const service = services[app.name] as ComposeService;

      it('is built from its own Dockerfile with the repository as context', () => {
        expect(service.build?.context).toBe('.');
        expect(service.build?.dockerfile).toBe(`services/${app.name}/Dockerfile`);
        expect(existsSync(join(root, service.build?.dockerfile ?? 'missing'))).toBe(true);
      });

      it('publishes its port and sets PORT to it', () => {
        expect(service.ports).toEqual([`${app.port}:${app.port}`]);
        expect(Number(service.environment?.PORT)).toBe(app.port);
        expect(app.schema.parse({}).PORT).toBe(app.port);
      });

      it('names only variables the service reads, and hosts that are compose services', () => {
        const known = Object.keys(app.schema.shape);
        for (const variable of Object.keys(service.environment ?? {})) {
          expect(known, `${app.name} does not read ${variable}`).toContain(variable);
        }
        for (const [variable, value] of Object.entries(service.environment ?? {})) {
          if (variable.endsWith('_HOST')) expect(Object.keys(services)).toContain(String(value));
        }
        const env = Object.fromEntries(
          Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
        );
        expect(() => loadConfig(app.schema, env)).not.toThrow();
      });

      it('connects to MySQL as its own user, whose privileges cover its own database only', () => {
        const env = service.environment ?? {};
        expect(env.MYSQL_USER).toBe(app.name);
        expect(env.MYSQL_DATABASE).toBe(app.database);
        const passwordVariable = `${app.name.toUpperCase()}_MYSQL_PASSWORD`;
        expect(String(env.MYSQL_PASSWORD)).toMatch(new RegExp(`^\\$\\{${passwordVariable}:-`));
        expect(services.mysql?.environment?.[passwordVariable]).toBe(env.MYSQL_PASSWORD);
        const grants = [...initScript.matchAll(/GRANT (.+) ON (\S+) TO '(\w+)'@'%'/g)].filter(
          (grant) => grant[3] === app.name,
        );
        expect(grants.map((grant) => grant[2])).toEqual([`${app.database}.*`]);
        expect(initScript).toContain(`CREATE USER IF NOT EXISTS '${app.name}'@'%'`);
        expect(initScript).toContain(`\${${passwordVariable}:?}`);
      });

      it('is given longer to stop than it takes to drain (stop_grace_period > SHUTDOWN_GRACE_MS)', () => {
        const graceMs = Number(
          service.environment?.SHUTDOWN_GRACE_MS ?? app.schema.parse({}).SHUTDOWN_GRACE_MS,
        );
        expect(seconds(service.stop_grace_period ?? '10s') * 1000).toBeGreaterThan(graceMs);
      });

      it('waits for healthy stores', () => {
        for (const store of app.stores) {
          expect(service.depends_on?.[store]).toEqual({ condition: 'service_healthy' });
        }
      });
    });
  }
});

describe('docker-compose.yml, profile scaled', () => {
  const nginx = services.nginx as ComposeService;
  const conf = read('deploy/nginx/nginx.conf');

  for (const app of apps) {
    const name = `${app.name}-scaled`;
    it(`${name}: two replicas of ${app.name}, same image and settings, no published port`, () => {
      const service = services[name] as ComposeService;
      const base = services[app.name] as ComposeService;
      expect(service.profiles).toEqual(['scaled']);
      expect(service.deploy?.replicas).toBe(2);
      expect(read('docker-compose.yml')).toContain('adds exactly two replicas of\n# each service');
      const graceMs = Number(service.environment?.SHUTDOWN_GRACE_MS);
      expect(seconds(service.stop_grace_period ?? '10s') * 1000).toBeGreaterThan(graceMs);
      expect(service.build).toEqual(base.build);
      expect(service.ports).toBeUndefined();
      expect(service.depends_on).toEqual(base.depends_on);
      const known = Object.keys(app.schema.shape);
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        expect(known, `${app.name} does not read ${variable}`).toContain(variable);
        if (variable in (base.environment ?? {}) && variable !== 'TRUST_PROXY') {
          expect(value).toEqual(base.environment?.[variable]);
        }
      }
      const env = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]),
      );
      expect(() => loadConfig(app.schema, env)).not.toThrow();
    });
  }

  it('nginx mounts deploy/nginx/nginx.conf and publishes the ports it listens on', () => {
    expect(nginx.profiles).toEqual(['scaled']);
    expect(nginx.image).toMatch(/^nginx:/);
    expect(nginx.volumes).toContain('./deploy/nginx/nginx.conf:/etc/nginx/nginx.conf:ro');
    const listens = [...conf.matchAll(/^\s*listen (\d+);/gm)].map((m) => m[1]);
    expect(listens.length).toBe(2);
    expect(nginx.ports).toEqual(listens.map((port) => `${port}:${port}`));
    for (const dependency of Object.keys(nginx.depends_on ?? {})) {
      expect(services[dependency]?.profiles).toEqual(['scaled']);
    }
  });

  it('nginx sends each port to a scaled service, resolved again every 10 s', () => {
    expect(conf).toMatch(/^\s*resolver 127\.0\.0\.11 valid=10s\b[^;]*;$/m);
    expect(conf).not.toMatch(/^\s*upstream /m);
    const targets = [
      ...conf.matchAll(/set \$(\w+) ([\w.-]+):(\d+);\s*proxy_pass http:\/\/\$(\w+);/g),
    ];
    expect(targets.map((m) => m[1]).sort()).toEqual(apps.map((app) => app.name).sort());
    for (const [, variable, host, port, passed] of targets) {
      const app = apps.find((candidate) => candidate.name === variable);
      expect(passed).toBe(variable);
      expect(host).toBe(`${variable}-scaled`);
      expect(Number(services[host as string]?.environment?.PORT)).toBe(Number(port));
      expect(Number(port)).toBe(app?.port);
    }
  });

  it('nginx.conf passes nginx -t', async () => {
    const prefix = await mkdtemp(join(tmpdir(), 'nginx-conf-'));
    try {
      const nginxBinary = ['/usr/sbin/nginx', 'nginx'].find(
        (path) => path === 'nginx' || existsSync(path),
      );
      const { stderr } = await run(nginxBinary as string, [
        '-t',
        '-p',
        prefix,
        '-e',
        'stderr',
        '-c',
        join(root, 'deploy/nginx/nginx.conf'),
      ]);
      expect(stderr).toContain('test is successful');
    } finally {
      await rm(prefix, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.yml, profile scaled, addresses', () => {
  const nginx = services.nginx as ComposeService;
  const nginxAddress = nginx.networks?.default?.ipv4_address as string;

  it("gives nginx a fixed address inside the network's fixed subnet", () => {
    const subnet = compose.networks?.default?.ipam?.config?.[0]?.subnet as string;
    expect(subnet).toMatch(/^\d+\.\d+\.\d+\.0\/24$/);
    expect(nginxAddress.split('.').slice(0, 3)).toEqual(subnet.split('.').slice(0, 3));
  });

  it('auth trusts X-Forwarded-For from that address alone', () => {
    expect(services['auth-scaled']?.environment?.TRUST_PROXY).toBe(nginxAddress);
    expect(authConfig.parse({ TRUST_PROXY: nginxAddress }).TRUST_PROXY).toEqual([nginxAddress]);
  });
});

describe('docker-compose.yml, profile replica', () => {
  const primary = services.mysql as ComposeService;
  const replica = services['mysql-replica'] as ComposeService;
  const setupScript = read('deploy/mysql/replica/01-replicate-primary.sh');
  const userScript = read('deploy/mysql/init/02-replication-user.sh');
  /** The server's `--name=value` flags (a bare `--name` reads as ON). */
  const flags = (service: ComposeService) => {
    const [binary, ...args] = service.command ?? [];
    expect(binary).toBe('mysqld');
    return Object.fromEntries(
      args.map((arg) => {
        const [name, value] = arg.replace(/^--/, '').split('=');
        return [name, value ?? 'ON'];
      }),
    );
  };

  it('mysql-replica runs the same MySQL, in a profile of its own, once mysql is healthy', () => {
    expect(replica.profiles).toEqual(['replica']);
    expect(replica.image).toBe(primary.image);
    expect(replica.depends_on).toEqual({ mysql: { condition: 'service_healthy' } });
    expect(replica.volumes).toContain('mysql-replica-data:/var/lib/mysql');
    expect(compose.volumes).toHaveProperty('mysql-replica-data');
    for (const [name, service] of Object.entries(services)) {
      if (!service.profiles?.includes('replica'))
        expect(Object.keys(service.depends_on ?? {}), name).not.toContain('mysql-replica');
    }
  });

  it('both servers log GTIDs under server ids of their own; the replica is read-only', () => {
    const [primaryFlags, replicaFlags] = [flags(primary), flags(replica)];
    for (const server of [primaryFlags, replicaFlags]) {
      expect(server['gtid-mode']).toBe('ON');
      expect(server['enforce-gtid-consistency']).toBe('ON');
      expect(server['log-bin']).toBeTruthy();
      expect(Number(server['server-id'])).toBeGreaterThan(0);
    }
    expect(replicaFlags['server-id']).not.toBe(primaryFlags['server-id']);
    expect(replicaFlags['read-only']).toBe('ON');
    expect(primaryFlags['read-only']).toBeUndefined();
  });

  it('the replica follows mysql by GTID auto-position, as the user the primary makes for it', () => {
    expect(replica.volumes).toContain('./deploy/mysql/replica:/docker-entrypoint-initdb.d:ro');
    for (const script of ['init/02-replication-user.sh', 'replica/01-replicate-primary.sh']) {
      expect(statSync(join(root, 'deploy/mysql', script)).mode & 0o111).not.toBe(0);
      expect(read(`deploy/mysql/${script}`)).toContain(`\${REPLICATION_MYSQL_PASSWORD:?}`);
    }
    const user = /SOURCE_USER='(\w+)'/.exec(setupScript)?.[1];
    expect(userScript).toContain(`CREATE USER IF NOT EXISTS '${user}'@'%'`);
    expect(userScript).toContain(`GRANT REPLICATION SLAVE ON *.* TO '${user}'@'%';`);
    expect(setupScript).toMatch(
      /CHANGE REPLICATION SOURCE TO\s+SOURCE_HOST='mysql',\s+SOURCE_PORT=3306,/,
    );
    expect(setupScript).toContain('SOURCE_AUTO_POSITION=1');
    expect(setupScript).toMatch(/^START REPLICA;$/m);
    const password = primary.environment?.REPLICATION_MYSQL_PASSWORD;
    expect(password).toMatch(/^\$\{REPLICATION_MYSQL_PASSWORD:-/);
    expect(replica.environment?.REPLICATION_MYSQL_PASSWORD).toBe(password);
    expect(replica.environment?.MYSQL_ROOT_PASSWORD).toBe(primary.environment?.MYSQL_ROOT_PASSWORD);
  });

  it('is healthy only while both replication threads run', async () => {
    const [kind, command] = replica.healthcheck?.test ?? [];
    expect(kind).toBe('CMD-SHELL');
    const bin = await mkdtemp(join(tmpdir(), 'replica-health-'));
    try {
      // A stand-in for the mysql client that prints the status given in REPLICA_STATUS.
      writeFileSync(join(bin, 'mysql'), '#!/bin/sh\nprintf "%s\\n" "$REPLICA_STATUS"\n', {
        mode: 0o755,
      });
      const status = (io: string, sql: string) =>
        `*** 1. row ***\n  Replica_IO_Running: ${io}\n  Replica_SQL_Running: ${sql}\n  Replica_SQL_Running_State: Yes`;
      const healthy = (replicaStatus: string) =>
        run('/bin/sh', ['-c', String(command).replaceAll('$$', '$')], {
          env: { PATH: `${bin}:${process.env.PATH}`, REPLICA_STATUS: replicaStatus },
        }).then(
          () => true,
          () => false,
        );
      expect(await healthy(status('Yes', 'Yes'))).toBe(true);
      expect(await healthy(status('Connecting', 'Yes'))).toBe(false);
      expect(await healthy(status('Yes', 'No'))).toBe(false);
      expect(await healthy('')).toBe(false);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.yml, profile metrics', () => {
  const prometheus = services.prometheus as ComposeService;
  const config = parse(read('deploy/prometheus/prometheus.yml')) as {
    scrape_configs: {
      job_name: string;
      metrics_path?: string;
      static_configs?: { targets: string[] }[];
      dns_sd_configs?: { names: string[]; port: number }[];
    }[];
  };

  it('runs Prometheus with deploy/prometheus/prometheus.yml', () => {
    expect(prometheus.profiles).toEqual(['metrics']);
    expect(prometheus.image).toMatch(/^prom\/prometheus:v3/);
    expect(prometheus.volumes).toContain(
      './deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
    );
  });

  it('scrapes /metrics of every service, and every replica of the scaled ones, on its port', () => {
    const targets = config.scrape_configs.flatMap((job) => {
      expect(job.metrics_path ?? '/metrics').toBe('/metrics');
      return [
        ...(job.static_configs ?? []).flatMap((c) => c.targets),
        ...(job.dns_sd_configs ?? []).flatMap((c) => c.names.map((n) => `${n}:${c.port}`)),
      ];
    });
    const expected = apps.flatMap((app) => [
      `${app.name}:${app.port}`,
      `${app.name}-scaled:${app.port}`,
    ]);
    expect(targets.sort()).toEqual(expected.sort());
    for (const target of targets) {
      const [host, port] = target.split(':');
      expect(Number(services[host as string]?.environment?.PORT)).toBe(Number(port));
      expect(services[host as string]?.environment?.METRICS_PORT).toBeUndefined();
    }
  });
});

describe('Dockerfiles', () => {
  const workspaceDirs = ['packages', 'services'].flatMap((dir) =>
    readdirSync(join(root, dir)).map((name) => `${dir}/${name}`),
  );
  const workspacePackages = workspaceDirs.map((dir) => `${dir}/package.json`);
  const manifests = new Map(
    workspaceDirs.map((dir) => {
      const manifest = JSON.parse(read(`${dir}/package.json`)) as {
        name: string;
        dependencies?: Record<string, string>;
      };
      return [manifest.name, { dir, dependencies: manifest.dependencies ?? {} }];
    }),
  );
  /** The directories of a package and of every workspace package it depends on, transitively. */
  const workspaceDependencies = (name: string, seen = new Set<string>()): string[] => {
    const manifest = manifests.get(name);
    if (!manifest || seen.has(name)) return [];
    seen.add(name);
    const inner = Object.entries(manifest.dependencies)
      .filter(([, range]) => range.startsWith('workspace:'))
      .flatMap(([dependency]) => workspaceDependencies(dependency, seen));
    return [manifest.dir, ...inner];
  };

  for (const app of apps) {
    const dockerfile = read(`services/${app.name}/Dockerfile`);

    it(`${app.name}: multi-stage, only this service deployed, non-root, health-checked`, () => {
      expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
      expect(dockerfile).toContain(`pnpm deploy --filter @svc/${app.name} --prod /out`);
      expect(dockerfile).toMatch(/^USER node$/m);
      expect(dockerfile).toMatch(/^HEALTHCHECK[\s\S]*\/healthz/m);
      expect(dockerfile).toContain(`EXPOSE ${app.port}`);
      expect(dockerfile).toContain('CMD ["node", "dist/main.js"]');
    });

    it(`${app.name}: copies every workspace manifest the frozen lockfile needs`, () => {
      for (const manifest of workspacePackages) expect(dockerfile).toContain(`COPY ${manifest}`);
    });

    it(`${app.name}: copies the sources of every workspace package it builds on`, () => {
      const needed = workspaceDependencies(`@svc/${app.name}`);
      expect(needed.length).toBeGreaterThan(0);
      for (const dir of needed) expect(dockerfile).toMatch(new RegExp(`^COPY ${dir} ${dir}$`, 'm'));
    });
  }
});
