"""Secrets never reach logs: after the fault scenarios and the bad-input suite (which sent good, bad and
huge tokens), no log of the harness holds the JWT secret, a token, or the database password, and no
management endpoint hands out the configuration."""

import re

import pytest
from conftest import RUN_DIR, SETTINGS, request

JWT = re.compile(rb"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}")


def patterns():
    pw = re.escape(SETTINGS.db_password.encode())
    return {
        "the JWT secret": re.compile(re.escape(SETTINGS.secret.encode())),
        "a bearer token": JWT,
        # The local password is a plain word ("coupon"), so only where it stands as a password.
        "the DB password": re.compile(rb"(?i)(pass(word)?|pwd)[\"']?\s*[:=]\s*[\"']?" + pw + rb"\b"),
    }


def scan(files):
    """{(file, what): first line that matched}."""
    found = {}
    pats = patterns()
    for f in files:
        for n, line in enumerate(f.read_bytes().splitlines(), 1):
            for what, rx in pats.items():
                if (f, what) not in found and rx.search(line):
                    found[(f, what)] = f"{f.name}:{n}: {line[:160]!r}"
    return found


def harness_logs():
    globs = [
        "logs/*.log*",
        "kafka/*/server.log*",
        "kafka/*/controller.log*",
        "redis/*/redis.log",
        "mariadb/mariadbd.err",
        "mariadb/mariadbd.out",
    ]
    return sorted({p for g in globs for p in RUN_DIR.glob(g) if p.is_file()})


def test_the_scanner_finds_what_it_looks_for(tmp_path):
    from conftest import token

    planted = tmp_path / "planted.log"
    planted.write_bytes(
        b"starting with jwt secret " + SETTINGS.secret.encode() + b"\n"
        b"GET /x Authorization: Bearer " + token("someone").encode() + b"\n"
        b"datasource password=" + SETTINGS.db_password.encode() + b"\n"
    )
    assert {what for _, what in scan([planted])} == set(patterns())
    clean = tmp_path / "clean.log"
    clean.write_bytes(b"HikariPool-1 - Start completed.\nssl.key.password = null\ncoupon-api started\n")
    assert scan([clean]) == {}


def test_no_secret_in_the_harness_logs():
    files = harness_logs()
    services = [f for f in files if f.parent.name == "logs" and f.stat().st_size > 0]
    assert services, f"no service logs under {RUN_DIR}/logs: nothing was scanned"
    found = scan(files)
    assert not found, "secrets in logs:\n" + "\n".join(found.values())


@pytest.mark.parametrize("port_of", ["api", "consumer"])
@pytest.mark.parametrize(
    "endpoint", ["env", "configprops", "heapdump", "threaddump", "loggers", "beans", "mappings", "shutdown"]
)
def test_management_endpoints_do_not_expose_configuration(port_of, endpoint):
    import http.client

    port = {"api": 8081, "consumer": 8091}[port_of] + SETTINGS.offset
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", f"/actuator/{endpoint}")
        status = conn.getresponse().status
    finally:
        conn.close()
    # 404 (not exposed) or 401 (the API's security refuses any management path it does not expose)
    assert status in (401, 404), f"{port_of} /actuator/{endpoint} answered {status}"


def test_metrics_hold_no_secret():
    import urllib.request

    for port in (8081 + SETTINGS.offset, 8091 + SETTINGS.offset):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/actuator/prometheus", timeout=10) as r:
            text = r.read()
        assert not scan_bytes(text), f"a secret in /actuator/prometheus of :{port}"


def scan_bytes(data):
    return [what for what, rx in patterns().items() if rx.search(data)]


def test_an_unauthenticated_answer_echoes_no_token(coupon):
    """A refused token is not repeated back (problem detail, WWW-Authenticate)."""
    from conftest import token

    bad = token("echo-check") + "x"
    answer = request("POST", f"/api/v1/coupons/{coupon}/issuances", headers={"Authorization": f"Bearer {bad}"})
    assert answer.status == 401, answer
    assert bad.encode() not in answer.body and all(bad not in v for v in answer.headers.values())
