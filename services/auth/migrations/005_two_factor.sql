-- A user's TOTP (RFC 6238) secret: set up (enabled_at NULL) until a code of
-- it is confirmed, then on. last_step is the 30-second step of the last code
-- accepted: a code of that step or an earlier one is refused, so each code is
-- good once, however many requests bring it at once (one UPDATE wins).
CREATE TABLE user_totp (
  user_id INT NOT NULL,
  secret VARBINARY(64) NOT NULL,
  enabled_at DATETIME(3) NULL,
  last_step BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The recovery codes of a user with TOTP on, as SHA-256 hashes (each code is
-- 80 random bits, so no slow hash is needed). A code used is deleted: good once.
CREATE TABLE recovery_codes (
  user_id INT NOT NULL,
  code_hash BINARY(32) NOT NULL,
  PRIMARY KEY (user_id, code_hash)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
