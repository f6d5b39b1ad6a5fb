-- Webhooks as the best senders run them (src/webhooks/):
-- previous_secret: the secret before the last rotation, signing beside the
--   new one until previous_secret_until (WEBHOOK_OLD_SECRET_HOURS);
-- rate_limit: deliveries per second at most, NULL for none; rate_tokens and
--   rate_at: its bucket (how many may start now, as of rate_at), shared by
--   every instance under the row's lock;
-- failing_since: the first failed attempt since the last delivered one,
--   NULL while it delivers; disabled_at and disabled_reason: set once it has
--   failed for WEBHOOK_DISABLE_AFTER_HOURS, cleared by enable;
-- recover_next, recover_through, recover_since: a recovery under way, the
--   next event id to look at, the last one to, and the time asked for.
ALTER TABLE webhooks
  ADD COLUMN previous_secret VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL DEFAULT NULL,
  ADD COLUMN previous_secret_until TIMESTAMP(3) NULL DEFAULT NULL,
  ADD COLUMN rate_limit INT NULL DEFAULT NULL,
  ADD COLUMN rate_tokens DOUBLE NOT NULL DEFAULT 0,
  ADD COLUMN rate_at TIMESTAMP(3) NULL DEFAULT NULL,
  ADD COLUMN failing_since TIMESTAMP(3) NULL DEFAULT NULL,
  ADD COLUMN disabled_at TIMESTAMP(3) NULL DEFAULT NULL,
  ADD COLUMN disabled_reason VARCHAR(255) NULL DEFAULT NULL,
  ADD COLUMN recover_next BIGINT NULL DEFAULT NULL,
  ADD COLUMN recover_through BIGINT NULL DEFAULT NULL,
  ADD COLUMN recover_since TIMESTAMP(3) NULL DEFAULT NULL;
