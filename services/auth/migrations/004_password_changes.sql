-- When each user's password was last changed through the service. A device
-- token of the first version names no password, so it is good only while its
-- user has no row here; and a change whose answer was lost is finished by
-- its retry only within minutes of the change. A table of its own leaves
-- `users`, which the old backend shares, as it is.
CREATE TABLE password_changes (
  user_id INT NOT NULL,
  changed_at DATETIME(3) NOT NULL,
  PRIMARY KEY (user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
