-- A failed login of a username that does not exist is written too, with no
-- user, so that refusing it costs what refusing a wrong password costs (the
-- row is the same write) and the time of the answer does not tell whether the
-- username exists. No user's page lists these rows; the service deletes them
-- once they are an hour old.
ALTER TABLE security_events MODIFY user_id INT NULL;
