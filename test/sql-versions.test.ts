import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Functions of MySQL or MariaDB that one of the servers the platform runs on
 * lacks: MariaDB 10.6 (Ubuntu 22.04's) or MySQL 8.0. The tests run on a newer
 * MariaDB, which has them all, so only this list keeps them out of both services.
 */
const NEWER_THAN_SUPPORTED = [
  'RANDOM_BYTES', // MariaDB 10.10
  'NATURAL_SORT_KEY', // MariaDB 10.7
  'SFORMAT', // MariaDB 10.7
  'JSON_EQUALS', // MariaDB 10.7
  'JSON_NORMALIZE', // MariaDB 10.7
  'JSON_OVERLAPS', // MariaDB 10.9
  'JSON_SCHEMA_VALID', // MariaDB 11.1
  'JSON_ARRAY_INTERSECT', // MariaDB 11.2
  'JSON_KEY_VALUE', // MariaDB 11.2
  'KDF', // MariaDB 11.3
  'UUID_V4', // MariaDB 11.7
  'UUID_V7', // MariaDB 11.7
  'FORMAT_PICO_TIME', // MariaDB 11.0
  'FORMAT_BYTES', // MariaDB 11.0
  'PS_THREAD_ID', // MariaDB 11.0
  'PS_CURRENT_THREAD_ID', // MariaDB 11.0
  'REGEXP_LIKE', // MySQL only
  'SYS_GUID', // MariaDB only
  'ADD_MONTHS', // MariaDB only
];
const CALLED = new RegExp(`\\b(${NEWER_THAN_SUPPORTED.join('|')})\\s*\\(`, 'i');

const root = join(import.meta.dirname, '..');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(sql|ts)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the SQL runs on MariaDB 10.6 and MySQL 8.0', () => {
  it.each(['auth', 'platform'])(
    '%s calls no function that either lacks, in a migration or a statement',
    async (service) => {
      const dirs = ['migrations', 'src'].map((dir) => join(root, 'services', service, dir));
      const files = (await Promise.all(dirs.map(filesUnder))).flat();
      expect(files.length).toBeGreaterThan(20);
      const calls = [];
      for (const file of files) {
        for (const [i, line] of (await readFile(file, 'utf8')).split('\n').entries()) {
          if (CALLED.test(line)) calls.push(`${file}:${i + 1}: ${line.trim()}`);
        }
      }
      expect(calls).toEqual([]);
    },
  );
});
