-- status: 0 = off shelf, 1 = on shelf.
-- category compares byte for byte: the list filter is an exact match.
-- idx_services_category serves that filter in id order.
CREATE TABLE services (
  id INT NOT NULL AUTO_INCREMENT,
  merchant_id INT NOT NULL,
  name VARCHAR(100) NOT NULL,
  price DECIMAL(10,2) NOT NULL,
  category VARCHAR(50) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  image_url VARCHAR(200) NULL DEFAULT NULL,
  stock INT NOT NULL DEFAULT 0,
  status TINYINT NOT NULL DEFAULT 0,
  create_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  KEY idx_services_merchant (merchant_id),
  KEY idx_services_category (category, id),
  CONSTRAINT fk_services_merchant FOREIGN KEY (merchant_id)
    REFERENCES merchants (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
