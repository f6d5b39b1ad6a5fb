-- A transaction that writes events now numbers them itself, under the
-- 'events' row's lock (src/events/outbox.ts); the publisher numbers only the
-- events written while that lock was held by another. The 'published' row: the
-- last id whose event the publisher has counted and written webhook deliveries
-- for (src/events/publish.ts), a row of its own so that publishing never holds
-- the writers' row. Every event numbered before this migration has them.
INSERT INTO event_counter (name, last_id)
SELECT 'published', last_id FROM event_counter WHERE name = 'events';
