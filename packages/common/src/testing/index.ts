export { type CapturedLogs, captureLogs } from './capture-logs.js';
export { setupTestServers } from './global-setup.js';
export { parsePrometheusText, type Sample, sampleValue } from './prometheus-text.js';
export {
  startRedisCluster,
  startRedisSentinel,
  type TestRedisCluster,
  type TestRedisSentinel,
} from './redis-topologies.js';
export {
  freePort,
  type MainResult,
  runMain,
  startMariaDbServer,
  startRedisServer,
  type TestServer,
} from './servers.js';
export {
  createTestDatabase,
  createTestRedis,
  mysqlSettingsFromUrl,
  mysqlVariables,
  type TestDatabase,
  type TestRedis,
} from './stores.js';
