#!/usr/bin/env bash
# Makes Redis and MariaDB answer on loopback for development and CI, and
# installs nats-server (the tests start their own, with JetStream) and nginx
# and chromium for the reliability suite's load-balancer and browser tests. Installs them with apt-get on Debian or Ubuntu when missing;
# does nothing where they already answer. MariaDB's root gets an empty
# password over TCP.
set -euo pipefail

SUDO=''
[ "$(id -u)" -eq 0 ] || SUDO='sudo'
apt_updated=''

install_packages() {
  if [ -z "$apt_updated" ]; then
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

wait_for() {
  local what=$1 probe=$2
  for _ in $(seq 1 60); do
    if eval "$probe"; then return 0; fi
    sleep 0.5
  done
  echo "dev-services: $what did not start" >&2
  return 1
}

redis_answers() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
mysql_answers() { mariadb -h 127.0.0.1 -P 3306 -u root -e 'SELECT 1' >/dev/null 2>&1; }

command -v redis-server >/dev/null || install_packages redis-server redis-tools
command -v mariadbd >/dev/null || install_packages mariadb-server mariadb-client
# The event relay's tests start their own, on a free port (packages/test-kit).
command -v nats-server >/dev/null || PATH="$PATH:/usr/sbin" command -v nats-server >/dev/null || install_packages nats-server
# Only the scaling tests use it, each with a configuration of its own; it is not started here.
command -v nginx >/dev/null || PATH="$PATH:/usr/sbin" command -v nginx >/dev/null || install_packages nginx
# The browser test of the lists' ETags drives it headless (playwright-core).
command -v chromium >/dev/null || install_packages --no-install-recommends chromium

if redis_answers; then
  echo "dev-services: redis answers on 127.0.0.1:6379"
else
  $SUDO mkdir -p /var/lib/redis /var/log/redis
  $SUDO redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save '' \
    --appendonly no --dir /var/lib/redis --logfile /var/log/redis/dev-services.log
  wait_for redis redis_answers
  echo "dev-services: started redis on 127.0.0.1:6379"
fi

if mysql_answers; then
  echo "dev-services: mariadb answers on 127.0.0.1:3306"
else
  if [ ! -d /var/lib/mysql/mysql ]; then
    $SUDO mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
  fi
  $SUDO mkdir -p /run/mysqld
  $SUDO chown mysql:mysql /run/mysqld 2>/dev/null || true
  $SUDO start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- \
    --user=mysql --bind-address=127.0.0.1 --port=3306
  wait_for mariadb "$SUDO mariadb -u root -e 'SELECT 1' >/dev/null 2>&1"
  # A fresh Debian install lets root in only through the unix socket.
  $SUDO mariadb -u root -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('') OR unix_socket; FLUSH PRIVILEGES;"
  wait_for 'mariadb over TCP' mysql_answers
  echo "dev-services: started mariadb on 127.0.0.1:3306"
fi
