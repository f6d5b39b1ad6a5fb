-- An event names its row and the status the change left it in (row_id,
-- row_status), and its data is built from them when read
-- (src/events/event-data.ts): writing the row's JSON in every create's
-- transaction cost the database a join and a JSON text per row. data keeps
-- the JSON of the events written before, and of none after.
ALTER TABLE events
  MODIFY data MEDIUMBLOB NULL DEFAULT NULL,
  ADD COLUMN row_id BIGINT NULL DEFAULT NULL,
  ADD COLUMN row_status TINYINT NULL DEFAULT NULL;
