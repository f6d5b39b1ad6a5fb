export { messageBody } from './answer-body.js';
export { bearerToken } from './bearer-token.js';
export {
  boolVar,
  ConfigError,
  httpEnv,
  intVar,
  loadConfig,
} from './config.js';
export { docsRouter } from './docs-router.js';
export {
  AppError,
  BusyError,
  DuplicateEntryError,
  LockConflictError,
  MissingReferenceError,
  NotFoundError,
  OutcomeUnknownError,
  StoreUnavailableError,
} from './errors.js';
export { healthRouter } from './health.js';
export { type BodyFault, bodyFaultOf, createBaseApp } from './http.js';
export { jsonBodyParser } from './json-body.js';
export { createLogger, type Logger } from './logger.js';
export {
  createMetrics,
  type Metrics,
} from './metrics.js';
export { migrate, migrateOnce } from './migrate.js';
export { createDatabase, type Database } from './mysql-database.js';
export type { HeldConnection, LookupThenList } from './mysql-held.js';
export {
  createMysqlPool,
  type MysqlSettings,
  mysqlEnv,
  mysqlSettingsFrom,
  openMysqlPool,
  type Pool,
  type ResultSetHeader,
  type RowDataPacket,
} from './mysql-settings.js';
export type { Statement } from './mysql-statement.js';
export {
  buildOpenApi,
  type OpenApiDocument,
  type OperationDoc,
  openApiPath,
  type ResponseDoc,
} from './openapi.js';
export { connectRedis, type RedisClient } from './redis.js';
export { redisEnv, redisEnvRules, redisSettingsFrom } from './redis-settings.js';
// Declares req.id and req.log on every Express request of the services.
export type {} from './request-logger.js';
export { type TableRoute, tableRouter } from './route-table.js';
export { serve } from './serve.js';
export { listeningMessage } from './service-urls.js';
export { sharedSecrets } from './shared-secrets.js';
export { onShutdownSignals, shutdownGracefully } from './shutdown.js';
export { openCursor, signCursor } from './signed-cursor.js';
export { runService } from './startup.js';
export { createWaitQueue } from './wait-queue.js';
