-- An event names its row and the status the change left it in (row_id,
-- row_status), and its data is built from them when read
-- (src/events/event-data.ts): writing the row's JSON in every create's
-- transaction cost the database a join and a JSON text per row. data keeps
-- the JSON of the events written before, and of none after.
--
-- idx_events_id replaces the unique key on id: the events not yet numbered
-- (id NULL) are then read in seq order straight from the index, as many as a
-- publish step takes, where the unique key gave them unordered and every one
-- of them was read and sorted on each step. Ids are unique by construction
-- (one publish step at a time, under event_counter's lock).
ALTER TABLE events
  MODIFY data MEDIUMBLOB NULL DEFAULT NULL,
  ADD COLUMN row_id BIGINT NULL DEFAULT NULL,
  ADD COLUMN row_status TINYINT NULL DEFAULT NULL,
  DROP INDEX uk_events_id,
  ADD KEY idx_events_id (id, seq);
