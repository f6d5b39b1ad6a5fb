export {
  AppError,
  errorCode,
  StoreUnavailableError,
  StoreUnreachableError,
  UNAVAILABLE_MESSAGE,
} from './app-error.js';
export {
  boolVar,
  ConfigError,
  type HttpConfig,
  httpEnv,
  intVar,
  loadConfig,
  logLevels,
  stringVar,
} from './config.js';
export { type MessageBody, type MsgBody, messageBody, messageError, msgBody } from './envelope.js';
export { healthRouter, type ReadinessCheck } from './health.js';
export {
  createBaseApp,
  errorHandler,
  type Failure,
  type FailureRenderer,
  notFound,
  renderStatusEnvelope,
  toFailure,
} from './http.js';
export { ListenError, listen } from './listen.js';
export { createLogger, type Logger, REDACTED_PATHS } from './logger.js';
export {
  createMetrics,
  type Metrics,
  UNMATCHED_ROUTE,
} from './metrics.js';
export { migrate, migrateOnce, splitStatements } from './migrate.js';
export {
  createMysqlPool,
  destroyConnection,
  isMysqlUnavailable,
  type MysqlSettings,
  mysqlEnv,
  mysqlSettingsFrom,
  type Pool,
  type PoolConnection,
  queryWithin,
  type ResultSetHeader,
  type RowDataPacket,
} from './mysql.js';
export {
  type ApiInfo,
  buildOpenApi,
  docsRouter,
  type OpenApiDocument,
  type OperationDoc,
  openApiPath,
  type ResponseDoc,
} from './openapi.js';
export {
  connectRedis,
  createRedis,
  type NodeRedisSettings,
  type RedisAddress,
  type RedisClient,
  type RedisEnv,
  type RedisSettings,
  redisEnv,
  redisEnvRules,
  redisSettingsFrom,
} from './redis.js';
export { requestIdFrom, requestLogger } from './request-logger.js';
export { serve } from './serve.js';
export { onShutdownSignals, type ShutdownOptions, shutdownGracefully } from './shutdown.js';
export { runService } from './startup.js';
