-- Accounts of the judge. The username index is case-insensitive, so `Alice` and
-- `alice` cannot both exist; 128 characters leave room for names from the old
-- system, while new registrations follow the 3..32 rule in code.
-- `password` holds a self-describing scrypt string, or a 32-hex MD5 digest
-- imported from the old system until its owner's next login rehashes it.
CREATE TABLE IF NOT EXISTS users (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  username VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
  password VARCHAR(255) NOT NULL,
  roles VARCHAR(255) NOT NULL DEFAULT 'user',
  create_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE KEY uq_users_username (username)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
