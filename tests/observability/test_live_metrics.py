"""Our services' metric names, checked on their real /actuator/prometheus after a small load.

Needs the services (API, consumer, waiting room) running on the local harness (mk/observability.mk starts them with
local/infra.sh and local/services.sh); ports follow PORT_OFFSET like every local port."""

import json
import os
import random
import re
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest
from conftest import referenced_metrics
from test_metric_names import is_service_metric

from verifier import tokens

OFFSET = int(os.environ.get("PORT_OFFSET", "0"))
API = f"http://127.0.0.1:{8080 + OFFSET}"
WAITING_ROOM = f"http://127.0.0.1:{8070 + OFFSET}"
MANAGEMENT = {
    "coupon-api": f"http://127.0.0.1:{8081 + OFFSET}",
    "coupon-consumer": f"http://127.0.0.1:{8091 + OFFSET}",
    "coupon-waiting-room": f"http://127.0.0.1:{8071 + OFFSET}",
}
# Generous: the first requests to a just-started JVM on a busy 2-core machine are slow.
HTTP_TIMEOUT = 60
SECRET = os.environ.get("COUPON_SECURITY_JWT_SECRET") or tokens.DEV_SECRET


def call(method, url, user=None, admin=False, body=None):
    headers = {"Accept": "application/json"}
    if user:
        headers["Authorization"] = "Bearer " + tokens.token(user, SECRET, admin=admin, ttl=600)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def scrape(app):
    req = urllib.request.Request(
        MANAGEMENT[app] + "/actuator/prometheus", headers={"Accept": "text/plain;version=0.0.4"}
    )
    with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT) as resp:
        text = resp.read().decode()
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        samples.setdefault(name, []).append(line)
    return samples


def wait_ready(app, seconds=180):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(MANAGEMENT[app] + "/actuator/health/readiness", timeout=5) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(2)
    pytest.fail(f"{app} not ready on {MANAGEMENT[app]} (start it: local/infra.sh up && local/services.sh up)")


def issue(coupon, user, attempts=75):
    """One issuance as a well-behaved client makes it: a 503 (load shed, e.g. the first Kafka sends of
    a cold producer on a starved machine outlasting the send timeout) is retried after Retry-After.
    A shed answer can be ambiguous: a Redis command that timed out on the client may still have
    reserved, and the retry then answers 409 until the reconciler releases the stale reservation.
    A timed-out send also holds its slot (503 "held" for the last coupons) until the reconciler
    settles it after stale-after (36 s): the attempts outlast that."""
    for _ in range(attempts):
        status, _ = call("POST", f"{API}/api/v1/coupons/{coupon}/issuances", user, body={})
        if status != 503:
            return status
        time.sleep(1)
    return status


@pytest.fixture(scope="session")
def live():
    for app in MANAGEMENT:
        wait_ready(app)
    coupon = random.randint(10**12, 10**13)
    now = datetime.now(UTC)
    status, body = call(
        "PUT",
        f"{API}/api/v1/admin/coupons/{coupon}",
        "obs-admin",
        admin=True,
        body={
            "name": "observability check",
            "quantity": 3,
            "opensAt": (now - timedelta(minutes=1)).isoformat().replace("+00:00", "Z"),
            "closesAt": (now + timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
        },
    )
    assert status in (200, 201), body
    # Five users for three coupons, then obs-1 again: accepted, sold out and duplicate all happen even
    # when a user's first try is shed and its retry meets its own reservation (see issue()).
    answers = []
    for user in ("obs-1", "obs-2", "obs-3", "obs-4", "obs-5", "obs-1"):
        answers.append(issue(coupon, user))
    answers.append(call("POST", f"{API}/api/v1/coupons/{coupon + 1}/issuances", "obs-6", body={})[0])  # not found
    answers.append(call("POST", f"{API}/api/v1/coupons/abc/issuances", "obs-6", body={})[0])  # invalid id
    answers.append(call("GET", f"{API}/api/v1/coupons/{coupon}/issuances/me", "obs-1")[0])
    answers.append(call("GET", f"{API}/api/v1/coupons/{coupon}")[0])
    assert 202 in answers[:5] and 410 in answers[:5] and answers[5] == 409, answers
    assert set(answers[:5]) <= {202, 409, 410}, answers
    # The consumer persists asynchronously: wait for its rows to show up in its own counter.
    deadline = time.time() + 90
    while time.time() < deadline:
        consumer = scrape("coupon-consumer")
        if any(f'coupon="{coupon}"' in line for line in consumer.get("coupon_consumer_inserted_total", [])):
            break
        time.sleep(2)
    call("GET", f"{API}/api/v1/admin/coupons/{coupon}/reconciliation", "obs-admin", admin=True)
    # The waiting room's zone meters exist once a zone has seen a user: one join and one poll.
    room = f"{WAITING_ROOM}/api/v1/waiting-room/coupons/{coupon}/entries"
    joined, body = call("POST", room, "obs-7", body={})
    assert joined == 200, body
    polled, body = call("GET", f"{room}/me", "obs-7")
    assert polled == 200, body
    return {app: scrape(app) for app in MANAGEMENT}


def test_every_service_metric_read_by_dashboards_and_rules_is_published(live, rules, dashboards):
    published = set().union(*map(set, live.values()))
    wanted = {n: w for n, w in referenced_metrics(rules, dashboards).items() if is_service_metric(n)}
    missing = {n: w[:2] for n, w in wanted.items() if n not in published}
    # Counters of rare events (compensations, reconciler actions, dead letters) must be registered
    # at zero on startup: a series born at 1 makes increase()/rate() miss that first event.
    assert not missing, (
        "read by dashboards/rules but not published by the services (event counters must be "
        "pre-registered at 0): " + json.dumps(missing, indent=1)
    )


def test_every_sample_carries_the_application_tag(live):
    for app, samples in live.items():
        for _name, lines in samples.items():
            for line in lines:
                assert f'application="{app}"' in line, f"{app}: {line}"


def test_issuance_outcomes_were_counted(live):
    lines = live["coupon-api"]["coupon_issuance_requests_total"]
    results = {m.group(1) for line in lines for m in [re.search(r'result="([^"]*)"', line)] if m}
    assert {"accepted", "sold_out", "duplicate"} <= results, results
