"""Access to the running harness: the admin API over HTTP, MariaDB through PyMySQL, and the Kafka
consumer group through the Kafka CLI classes of the harness's own jars."""

import datetime as dt
import glob
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

from . import tokens

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(msg):
    print(f"[verify] {msg}", file=sys.stderr, flush=True)


def http(method, url, body=None, bearer=None, timeout=10):
    """(status, parsed JSON body); status 0 when nothing answered (not listening yet, timed out)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if bearer:
        req.add_header("Authorization", f"Bearer {bearer}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            raw = res.read()
            return res.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw) if raw else None
        except ValueError:
            return e.code, raw.decode(errors="replace")
    except (urllib.error.URLError, OSError) as e:
        return 0, str(e)


def iso(t):
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Api:
    def __init__(self, settings):
        self.settings = settings

    def _admin(self):
        return tokens.token("admin", self.settings.secret, admin=True)

    def wait_ready(self, timeout):
        """Waits for the API's readiness probe."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if http("GET", f"{self.settings.management_url}/actuator/health/readiness", timeout=3)[0] == 200:
                return True
            time.sleep(1)
        return False

    def register(self, coupon, quantity, opens_in=0.0, duration=3600.0, name=None):
        """Creates or replaces a coupon; it opens two seconds in the past so it is open the moment
        the API has it."""
        now = time.time()
        body = {
            "name": name or f"coupon {coupon}",
            "quantity": quantity,
            "opensAt": iso(now + opens_in - 2),
            "closesAt": iso(now + opens_in + duration),
        }
        url = f"{self.settings.api_url}/api/v1/admin/coupons/{coupon}"
        for _ in range(10):
            status, answer = http("PUT", url, body, self._admin())
            if status not in (0, 503):  # not listening yet, or shedding: try again as a client would
                break
            time.sleep(2)
        if status not in (200, 201):
            raise SystemExit(f"registering coupon {coupon} failed: {status} {answer}")
        log(f"coupon {coupon}: quantity {quantity}, open {body['opensAt']} .. {body['closesAt']} ({status})")
        return answer

    def reconciliation(self, coupon):
        status, answer = http(
            "GET", f"{self.settings.api_url}/api/v1/admin/coupons/{coupon}/reconciliation", bearer=self._admin()
        )
        return answer if status == 200 and isinstance(answer, dict) else None

    def settled_reconciliation(self, coupon, timeout):
        """The reconciliation view, asked again until it is consistent with nothing pending."""
        deadline = time.time() + timeout
        while True:
            rec = self.reconciliation(coupon)
            if rec and rec.get("consistent") and rec.get("pending", 1) == 0 or time.time() > deadline:
                return rec
            time.sleep(1)


class Database:
    """The issued_coupons table. Autocommit, so every query sees the rows committed since the last."""

    def __init__(self, settings):
        self._conn = settings.connect_db(connect_timeout=30, read_timeout=60)

    def _query(self, sql, *params):
        with self._conn.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall()

    def row_count(self, coupon):
        return self._query("SELECT COUNT(*) FROM issued_coupons WHERE coupon_id = %s", coupon)[0][0]

    def issued(self, coupon):
        """(user_id, slot) of every row of the coupon."""
        return [
            (u, int(s)) for u, s in self._query("SELECT user_id, slot FROM issued_coupons WHERE coupon_id = %s", coupon)
        ]

    def persist_span(self, coupon):
        """Seconds between the coupon's first and last row (0 with fewer than two)."""
        micros = self._query(
            "SELECT TIMESTAMPDIFF(MICROSECOND, MIN(issued_at), MAX(issued_at)) "
            "FROM issued_coupons WHERE coupon_id = %s",
            coupon,
        )[0][0]
        return int(micros) / 1e6 if micros is not None else 0.0

    def wait_drained(self, coupon, accepted, timeout, settle=3.0):
        """Polls the row count until it reaches `accepted` or the timeout passes, then waits `settle`
        seconds more for late extras (rows beyond the 202s would be a bug too). Returns (rows,
        seconds it took to reach `accepted`, or None)."""
        start = time.time()
        last_log = 0
        rows = self.row_count(coupon)
        while rows < accepted and time.time() - start < timeout:
            if time.time() - last_log > 2:
                log(f"draining: {rows}/{accepted} rows in MariaDB ({time.time() - start:.1f}s)")
                last_log = time.time()
            time.sleep(0.2)
            rows = self.row_count(coupon)
        drained = time.time() - start if rows >= accepted else None
        time.sleep(min(settle, max(0.0, timeout - (time.time() - start))))
        return self.row_count(coupon), drained

    def close(self):
        self._conn.close()


def kafka_lag(settings):
    """(the consumer group's total lag on the topic, None) or (None, why it is unknown)."""
    libs = sorted(glob.glob(os.path.join(ROOT, ".tools", "kafka*", "libs")))
    if not libs:
        return None, "no Kafka jars under .tools/kafka*/libs"
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")
    cmd = [
        java,
        "-Xmx256m",
        "-XX:TieredStopAtLevel=1",
        "-cp",
        os.path.join(libs[-1], "*"),
        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
        "--bootstrap-server",
        settings.kafka_bootstrap,
        "--describe",
        "--group",
        settings.group,
    ]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    lag, seen = 0, False
    for line in out.stdout.splitlines():
        cols = line.split()
        if len(cols) >= 6 and cols[0] == settings.group and cols[1] == settings.topic:
            seen = True
            lag += int(cols[5]) if cols[5].isdigit() else 0
    if not seen:
        return None, (out.stderr.strip() or out.stdout.strip())[-300:]
    return lag, None


def settled_lag(settings, timeout):
    """The group's lag, asked again until it is 0 or `timeout` passes: the consumer commits a batch's
    offsets after its rows, so one look can catch a batch persisted but not yet committed."""
    deadline = time.time() + timeout
    while True:
        lag, err = kafka_lag(settings)
        if lag is None or lag == 0 or time.time() > deadline:
            return lag, err
        log(f"consumer lag {lag}, asking again")
        time.sleep(2)
