-- Runs on MySQL 8.4 and MariaDB 10.11: only syntax both accept.
-- MySQL is the source of truth; Redis holds a fast, rebuildable view.

CREATE TABLE coupons (
    id          BIGINT       NOT NULL,
    name        VARCHAR(200) NOT NULL,
    quantity    INT          NOT NULL,
    opens_at    DATETIME(3)  NOT NULL,
    closes_at   DATETIME(3)  NOT NULL,
    paused      BOOLEAN      NOT NULL DEFAULT FALSE,
    version     BIGINT       NOT NULL DEFAULT 0,
    created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    CONSTRAINT ck_coupons_quantity CHECK (quantity >= 0),
    CONSTRAINT ck_coupons_window CHECK (closes_at > opens_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per issuable slot 1..quantity, written with the coupon. issued_coupons references it, so
-- the database refuses a row beyond the quantity even if Redis state was lost and replayed.
CREATE TABLE coupon_slots (
    coupon_id BIGINT NOT NULL,
    slot      INT    NOT NULL,
    PRIMARY KEY (coupon_id, slot),
    CONSTRAINT fk_coupon_slots_coupon FOREIGN KEY (coupon_id) REFERENCES coupons (id)
) ENGINE = InnoDB;

CREATE TABLE issued_coupons (
    id          BIGINT      NOT NULL AUTO_INCREMENT,
    coupon_id   BIGINT      NOT NULL,
    user_id     VARCHAR(64) NOT NULL,
    slot        INT         NOT NULL,
    event_id    CHAR(36)    NOT NULL,
    reserved_at DATETIME(3) NOT NULL,
    issued_at   DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    CONSTRAINT uk_issued_coupon_user UNIQUE (coupon_id, user_id),
    CONSTRAINT uk_issued_coupon_slot UNIQUE (coupon_id, slot),
    CONSTRAINT fk_issued_coupons_slot FOREIGN KEY (coupon_id, slot) REFERENCES coupon_slots (coupon_id, slot)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
