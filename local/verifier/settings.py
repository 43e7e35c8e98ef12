"""Where the local harness listens: the environment `local/infra.sh env` prints, plus PORT_OFFSET
(every contract port + PORT_OFFSET, so harnesses can run side by side)."""

import os
import re
from dataclasses import dataclass

from .tokens import default_secret


@dataclass(frozen=True)
class Settings:
    offset: int
    secret: str
    api_url: str
    db_url: str
    db_user: str
    db_password: str
    kafka_bootstrap: str
    topic: str
    group: str = "coupon-consumer"

    @classmethod
    def from_env(cls, env=None):
        env = os.environ if env is None else env
        offset = int(env.get("PORT_OFFSET") or 0)
        return cls(
            offset=offset,
            secret=env.get("JWT_SECRET") or default_secret(),
            api_url=env.get("API_URL", f"http://127.0.0.1:{8080 + offset}").rstrip("/"),
            db_url=env.get("DB_URL", f"jdbc:mysql://127.0.0.1:{13306 + offset}/coupon"),
            db_user=env.get("DB_USER", "coupon"),
            db_password=env.get("DB_PASSWORD", "coupon"),
            kafka_bootstrap=env.get("KAFKA_BOOTSTRAP", f"127.0.0.1:{19092 + offset}"),
            topic=env.get("COUPON_KAFKA_TOPIC", "coupon-issuance"),
        )

    @property
    def management_url(self):
        """The API's management port is its HTTP port + 1."""
        return re.sub(r":(\d+)$", lambda m: f":{int(m.group(1)) + 1}", self.api_url)

    def db_address(self):
        """(host, port, database) of the JDBC URL."""
        m = re.match(r"jdbc:(?:mysql|mariadb)://([^:/]+):(\d+)/([^?]+)", self.db_url)
        if not m:
            raise SystemExit(f"cannot read DB_URL {self.db_url}")
        host, port, db = m.groups()
        return host, int(port), db

    def connect_db(self, *, connect_timeout=30, read_timeout=None):
        """An autocommit connection to the event's MySQL (every query sees the rows committed since
        the last), in utf8mb4 so that user ids compare byte for byte."""
        import pymysql  # the verifier's pinned driver (local/verifier/requirements.txt)

        host, port, db = self.db_address()
        return pymysql.connect(
            host=host,
            port=port,
            user=self.db_user,
            password=self.db_password,
            database=db,
            autocommit=True,
            charset="utf8mb4",
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
        )
