-- The JetStream relay's position, one row per stream (EVENTS_NATS_STREAM):
-- the last event id JetStream acknowledged, written only after it did. A
-- relay step holds the row's lock (taken NOWAIT) while it publishes, so two
-- instances never relay at once (src/feed/event-relay.ts).
CREATE TABLE event_relays (
  stream VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  last_id BIGINT NOT NULL,
  PRIMARY KEY (stream)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
