-- A transaction that writes events now numbers them itself, under
-- event_counter's lock (src/events/outbox.ts); the publisher numbers only the
-- events written while another transaction held it. published_id: the last id
-- whose event the publisher has counted and written webhook deliveries for
-- (src/events/publish.ts); every event numbered before this migration has them.
ALTER TABLE event_counter ADD COLUMN published_id BIGINT NOT NULL DEFAULT 0;
UPDATE event_counter SET published_id = last_id;
