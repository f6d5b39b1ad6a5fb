#!/usr/bin/env bash
# Run once by the mysql image's entrypoint, when its data volume is first
# initialised: one database per service, and one user per service with every
# privilege on its own database and none elsewhere. The passwords come from
# AUTH_MYSQL_PASSWORD and PLATFORM_MYSQL_PASSWORD (see docker-compose.yml).
set -euo pipefail

# A password inside a single-quoted SQL string: double its quotes and backslashes.
quoted() { printf "'%s'" "$(printf '%s' "$1" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/''/g")"; }

MYSQL_PWD="${MYSQL_ROOT_PASSWORD:-}" mysql --user=root <<SQL
CREATE DATABASE IF NOT EXISTS judge CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE DATABASE IF NOT EXISTS life_service CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS 'auth'@'%' IDENTIFIED BY $(quoted "${AUTH_MYSQL_PASSWORD:?}");
CREATE USER IF NOT EXISTS 'platform'@'%' IDENTIFIED BY $(quoted "${PLATFORM_MYSQL_PASSWORD:?}");
GRANT ALL PRIVILEGES ON judge.* TO 'auth'@'%';
GRANT ALL PRIVILEGES ON life_service.* TO 'platform'@'%';
SQL
