#!/usr/bin/env bash
# Run once by the mysql image's entrypoint, when its data volume is first
# initialised: the user a replica (docker compose --profile replica) connects
# as, allowed to read the binary log and nothing else. The password comes from
# REPLICATION_MYSQL_PASSWORD (see docker-compose.yml).
set -euo pipefail

# A password inside a single-quoted SQL string: double its quotes and backslashes.
quoted() { printf "'%s'" "$(printf '%s' "$1" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/''/g")"; }

MYSQL_PWD="${MYSQL_ROOT_PASSWORD:-}" mysql --user=root <<SQL
CREATE USER IF NOT EXISTS 'replication'@'%' IDENTIFIED BY $(quoted "${REPLICATION_MYSQL_PASSWORD:?}");
GRANT REPLICATION SLAVE ON *.* TO 'replication'@'%';
SQL
