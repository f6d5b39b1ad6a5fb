-- status: 0 = awaiting payment; 1 and 2 as the order code uses them.
-- The list reads newest first, either all orders (idx_orders_created) or one
-- status (idx_orders_status_created), so a page is an index range, not a sort.
CREATE TABLE orders (
  id INT NOT NULL AUTO_INCREMENT,
  service_id INT NOT NULL,
  user_name VARCHAR(50) NOT NULL,
  user_phone VARCHAR(20) NOT NULL,
  create_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  status TINYINT NOT NULL DEFAULT 0,
  PRIMARY KEY (id),
  KEY idx_orders_service (service_id),
  KEY idx_orders_status_created (status, create_time, id),
  KEY idx_orders_created (create_time, id),
  CONSTRAINT fk_orders_service FOREIGN KEY (service_id)
    REFERENCES services (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
