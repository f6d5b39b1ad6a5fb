-- The Idempotency-Key of a create that wrote a row, written in the same
-- transaction as that row. resource: 'merchant', 'service' or 'order' (the
-- order create's aliases share 'order'). request_hash: SHA-256 of the body as
-- canonical JSON. A key is free again once expires_at has passed; expired rows
-- are deleted in the background (idx_idempotency_keys_expires).
CREATE TABLE idempotency_keys (
  resource VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  idempotency_key VARBINARY(255) NOT NULL,
  request_hash BINARY(32) NOT NULL,
  row_id INT NOT NULL,
  expires_at TIMESTAMP(3) NOT NULL,
  PRIMARY KEY (resource, idempotency_key),
  KEY idx_idempotency_keys_expires (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
