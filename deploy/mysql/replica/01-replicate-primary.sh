#!/usr/bin/env bash
# Run once by the mysql image's entrypoint on mysql-replica, when its data volume
# is first initialised: follow the mysql service from its first transaction,
# positioned by GTID, so the databases and service users arrive by replication.
# Every later start resumes on its own (the server starts its replication
# threads when a source is configured).
set -euo pipefail

# A password inside a single-quoted SQL string: double its quotes and backslashes.
quoted() { printf "'%s'" "$(printf '%s' "$1" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/''/g")"; }

# SOURCE_SSL: the server's own certificate, as caching_sha2_password needs TLS
# (or the source's public key) to send a password. A retry every 5 s for
# 5 days: a primary that was down is followed again soon after it returns.
MYSQL_PWD="${MYSQL_ROOT_PASSWORD:-}" mysql --user=root <<SQL
CHANGE REPLICATION SOURCE TO
  SOURCE_HOST='mysql',
  SOURCE_PORT=3306,
  SOURCE_USER='replication',
  SOURCE_PASSWORD=$(quoted "${REPLICATION_MYSQL_PASSWORD:?}"),
  SOURCE_AUTO_POSITION=1,
  SOURCE_SSL=1,
  SOURCE_CONNECT_RETRY=5,
  SOURCE_RETRY_COUNT=86400;
START REPLICA;
SQL
