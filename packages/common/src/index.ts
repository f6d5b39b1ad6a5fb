export { AppError, StoreUnavailableError } from './app-error.js';
export {
  boolVar,
  ConfigError,
  httpEnv,
  intVar,
  loadConfig,
} from './config.js';
export { healthRouter } from './health.js';
export { type BodyFault, bodyFaultOf, createBaseApp } from './http.js';
export { createLogger, type Logger } from './logger.js';
export {
  createMetrics,
  type Metrics,
} from './metrics.js';
export { migrate, migrateOnce } from './migrate.js';
export {
  createMysqlPool,
  destroyConnection,
  isMysqlUnavailable,
  type MysqlSettings,
  mysqlEnv,
  mysqlSettingsFrom,
  type Pool,
  queryTimedOut,
  queryWithin,
  type ResultSetHeader,
  type RowDataPacket,
  type Statement,
  transactionWithin,
} from './mysql.js';
export {
  buildOpenApi,
  docsRouter,
  type OpenApiDocument,
  type OperationDoc,
  openApiPath,
  type ResponseDoc,
} from './openapi.js';
export {
  connectRedis,
  type RedisClient,
  redisEnv,
  redisEnvRules,
  redisSettingsFrom,
} from './redis.js';
// Declares req.id and req.log on every Express request of the services.
export type {} from './request-logger.js';
export { serve } from './serve.js';
export { listeningMessage } from './service-urls.js';
export { onShutdownSignals, shutdownGracefully } from './shutdown.js';
export { runService } from './startup.js';
