-- The outbox (the platform README, "Events", says how it works). A change
-- writes its event row in its own transaction with id NULL; seq is the write
-- order, which is not the commit order. The publisher (src/events/publisher.ts)
-- numbers committed rows one run at a time, under the lock of the counter row
-- below, so an id is given only to a committed event and every later run gives
-- larger ids: ids increase in commit order across instances, with no gaps.
-- data: the changed row as its list returns it, JSON text as MySQL wrote it.
CREATE TABLE events (
  seq BIGINT NOT NULL AUTO_INCREMENT,
  id BIGINT NULL DEFAULT NULL,
  type VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  data MEDIUMBLOB NOT NULL,
  PRIMARY KEY (seq),
  UNIQUE KEY uk_events_id (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The last id the publisher gave; its row lock serializes the publishers.
CREATE TABLE event_counter (
  name VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  last_id BIGINT NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

INSERT INTO event_counter (name, last_id) VALUES ('events', 0);

-- types: the event types sent, comma-separated; NULL for every type.
CREATE TABLE webhooks (
  id INT NOT NULL AUTO_INCREMENT,
  url VARCHAR(2048) NOT NULL,
  types VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NULL DEFAULT NULL,
  secret VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  create_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- One row per event and webhook, written when the event is published.
-- idx_deliveries_claim serves each webhook's claims, idx_deliveries_pending
-- the oldest undelivered event (a metric), idx_deliveries_event retention.
-- status: pending (next_attempt_at says when; a claimed attempt moves it past
-- its own timeout), delivered, or failed (the retries are spent).
CREATE TABLE webhook_deliveries (
  id BIGINT NOT NULL AUTO_INCREMENT,
  webhook_id INT NOT NULL,
  event_id BIGINT NOT NULL,
  status ENUM('pending', 'delivered', 'failed') NOT NULL DEFAULT 'pending',
  attempts INT NOT NULL DEFAULT 0,
  next_attempt_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  last_attempt_at TIMESTAMP(3) NULL DEFAULT NULL,
  response_status INT NULL DEFAULT NULL,
  error VARCHAR(255) NULL DEFAULT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uk_deliveries_event (webhook_id, event_id),
  KEY idx_deliveries_claim (webhook_id, status, next_attempt_at),
  KEY idx_deliveries_event (event_id),
  KEY idx_deliveries_pending (status, event_id),
  CONSTRAINT fk_deliveries_webhook FOREIGN KEY (webhook_id)
    REFERENCES webhooks (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
