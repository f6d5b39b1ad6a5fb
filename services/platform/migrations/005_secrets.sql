-- Secrets every instance on this database shares: 'cursor' signs the order
-- list's page cursors, so a cursor made by one instance is good on every other
-- and after a restart. The service makes each secret the first time it needs
-- it and writes it once (orders/cursor-secret.ts): a migration cannot, since
-- MariaDB before 10.10 has no RANDOM_BYTES. IF NOT EXISTS: on MariaDB 10.6 an
-- earlier version of this file made the table and then failed, unrecorded.
CREATE TABLE IF NOT EXISTS platform_secrets (
  name VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  secret VARBINARY(64) NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
