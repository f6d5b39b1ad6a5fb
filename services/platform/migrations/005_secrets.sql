-- Secrets every instance on this database shares, made once by the first
-- migration: 'cursor' signs the order list's page cursors, so a cursor made by
-- one instance is good on every other and after a restart.
CREATE TABLE platform_secrets (
  name VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  secret VARBINARY(64) NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

INSERT INTO platform_secrets (name, secret) VALUES ('cursor', RANDOM_BYTES(32));
