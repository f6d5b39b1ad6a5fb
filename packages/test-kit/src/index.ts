export { type CapturedLogs, captureLogs } from './capture-logs.js';
export { type Fault, type FaultKind, type FaultProxy, startFaultProxy } from './fault-proxy.js';
export { setupTestServers } from './global-setup.js';
export { type MainProcess, startMain } from './main-process.js';
export { startMariaDbReplication, type TestMariaDbReplication } from './mariadb-replication.js';
export { startMariaDbServer } from './mariadb-server.js';
export { startNatsServer } from './nats-server.js';
export { parsePrometheusText, sampleValue } from './prometheus-text.js';
export { type RawClient, type RawRequest, type RawResponse, rawClient } from './raw-client.js';
export {
  startRedisCluster,
  startRedisSentinel,
  type TestRedisCluster,
  type TestRedisSentinel,
} from './redis-topologies.js';
export {
  type RecordedResponse,
  recordedResponses,
  recordResponses,
  undocumentedResponses,
} from './response-recorder.js';
export { freePort, runMain, startRedisServer, type TestServer } from './servers.js';
export type { MysqlSettings } from './settings.js';
export {
  createTestDatabase,
  createTestRedis,
  mysqlSettingsFromUrl,
  mysqlVariables,
  type TestDatabase,
} from './stores.js';
