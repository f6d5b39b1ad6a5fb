import { ConfigError, type Database } from '@svc/common';

/**
 * The statements of read-your-writes on one server flavour: the primary's
 * position (the set of transactions it has logged), and a wait on a replica
 * until it has applied a position, bounded in seconds, whose answer is 0 once
 * it has (MariaDB answers -1 on timeout, MySQL 8 answers 1).
 */
export interface GtidStatements {
  position: string;
  wait: string;
}

const MARIADB: GtidStatements = {
  position: 'SELECT @@GLOBAL.gtid_binlog_pos AS position',
  wait: 'SELECT MASTER_GTID_WAIT(?, ?) AS code',
};

const MYSQL: GtidStatements = {
  position: 'SELECT @@GLOBAL.gtid_executed AS position',
  wait: 'SELECT WAIT_FOR_EXECUTED_GTID_SET(?, ?) AS code',
};

/**
 * The statements for the primary's flavour, read once from its VERSION(). A
 * primary whose position is empty logs no GTIDs (every instance has written
 * by now: the migrations): a wait for it would be no wait at all, so replica
 * reads would lose read-your-writes. That is a ConfigError.
 */
export async function gtidStatements(primary: Database, name: string): Promise<GtidStatements> {
  const [row] = await primary.select<{ version: string }>('SELECT VERSION() AS version');
  const gtid = /mariadb/i.test(row?.version ?? '') ? MARIADB : MYSQL;
  const [logged] = await primary.select<{ position: string }>(gtid.position);
  if (!logged?.position) {
    throw new ConfigError(
      `MYSQL_REPLICA_HOSTS is set, but the primary at ${name} logs no GTIDs: turn on its binary log (MariaDB: log_bin; MySQL: also gtid_mode=ON)`,
    );
  }
  return gtid;
}
