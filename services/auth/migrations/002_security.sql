-- Secrets every instance on this database shares: 'device' signs the device
-- tokens a login answers, 'events-cursor' the cursors of the security-event
-- pages, so what one instance made is good on every other and after a restart.
-- The service makes each at random and writes it once (INSERT IGNORE): MariaDB
-- before 10.10 has no RANDOM_BYTES.
CREATE TABLE auth_secrets (
  name VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  secret VARBINARY(64) NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- What happened to an account, for its owner to read: logins (new_device set),
-- failed logins, locks, password changes, ended sessions, logout-all. Never a
-- token or a password. `at` is UTC; rows older than 90 days are deleted by the
-- service. The first key serves a user's pages, newest first; the second the
-- deletion of old rows.
CREATE TABLE security_events (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  user_id INT NOT NULL,
  type VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  at DATETIME(3) NOT NULL,
  ip VARCHAR(255) NOT NULL,
  user_agent VARCHAR(256) NULL,
  session_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  new_device TINYINT(1) NULL,
  KEY ix_security_events_user (user_id, at, id),
  KEY ix_security_events_at (at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
