import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { loadConfig } from '@svc/common';
import { describe, expect, it } from 'vitest';
import { configSchema as authConfig } from '../services/auth/src/config.js';
import { configSchema as platformConfig } from '../services/platform/src/config.js';

const root = join(import.meta.dirname, '..');

/** The variables a service reads are its config schema's keys. */
describe.each([
  ['auth', authConfig],
  ['platform', platformConfig],
] as const)('services/%s/.env.example', (name, schema) => {
  const text = readFileSync(join(root, `services/${name}/.env.example`), 'utf8');
  const set = parseEnv(text);
  const commented = [...text.matchAll(/^#\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1] as string);

  it('names every variable the config reads, each once', () => {
    const named = [...Object.keys(set), ...commented];
    expect([...named].sort()).toEqual(Object.keys(schema.shape).sort());
    expect(new Set(named).size).toBe(named.length);
  });

  it('sets each variable to its default, so copying it changes nothing', () => {
    expect(loadConfig(schema, set)).toEqual(loadConfig(schema, {}));
  });

  it('leaves commented exactly the variables that have no default', () => {
    const defaults = loadConfig(schema, {}) as Record<string, unknown>;
    for (const variable of commented) expect(defaults[variable], variable).toBeUndefined();
    for (const variable of Object.keys(set)) expect(defaults[variable], variable).toBeDefined();
  });
});
