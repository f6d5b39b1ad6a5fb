import type { Express } from 'express';
import { afterAll, beforeAll } from 'vitest';
import type { AuthSettings } from '../../src/config.js';
import { buildApp, openStores, type Stores } from './test-app.js';

/*
 * What a suite (the file, or the describe these are called in) runs on. The
 * stores open in the suite's beforeAll, so they, and the app built on them,
 * are there from its hooks and tests on, not while the file is collected.
 */

type SuiteStores = Pick<Stores, 'pool' | 'redis'>;

const notYet = (what: string) =>
  new Error(`The suite's ${what} is set up in beforeAll: use it in a hook or a test`);

/** A MySQL and a Redis database of the suite's own, opened before its tests and dropped after. */
export function suiteStores(): SuiteStores {
  let stores: Stores | undefined;
  beforeAll(async () => {
    stores = await openStores();
  });
  afterAll(() => stores?.close());
  const open = () => {
    if (!stores) throw notYet('stores');
    return stores;
  };
  return {
    get pool() {
      return open().pool;
    },
    get redis() {
      return open().redis;
    },
  };
}

/** The app with these settings on the suite's stores, built once before its tests. */
export function suiteApp(stores: SuiteStores, settings?: Partial<AuthSettings>): () => Express {
  let app: Express | undefined;
  beforeAll(() => {
    app = buildApp(stores, settings).app;
  });
  return () => {
    if (!app) throw notYet('app');
    return app;
  };
}
