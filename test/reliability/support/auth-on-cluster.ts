import {
  createTestDatabase,
  mysqlVariables,
  startRedisCluster,
  type TestDatabase,
  type TestRedisCluster,
} from '@svc/test-kit';
import { type ServiceProcess, startService } from './service-process.js';

export interface AuthOnCluster {
  cluster: TestRedisCluster;
  db: TestDatabase;
  auth: ServiceProcess;
  stop(): Promise<void>;
}

/** A real auth process on its own three-master Redis Cluster and test database. */
export async function authOnCluster(env: Record<string, string>): Promise<AuthOnCluster> {
  const cluster = await startRedisCluster();
  const db = await createTestDatabase();
  const auth = await startService('auth', {
    ...mysqlVariables(db.settings),
    REDIS_CLUSTER_NODES: cluster.variable,
    ...env,
  });
  return {
    cluster,
    db,
    auth,
    async stop() {
      await auth.stop();
      await cluster.destroy();
      await db.drop();
    },
  };
}
