"""The abuse suite runs against the harness tests/faults/run.sh started (PORT_OFFSET, RUN_DIR): the
API over raw HTTP, MariaDB for what was written, the harness's logs for secrets."""

import http.client
import os
import pathlib
import time

import pytest

from verifier import tokens  # the project's one JWT signer
from verifier.harness import Api

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The fault harness's place (tests/faults/run.sh exports them), never another suite's harness.
os.environ.setdefault("PORT_OFFSET", "2000")
os.environ.setdefault("RUN_DIR", str(ROOT / ".run" / "infra-faults"))
from verifier.settings import Settings  # noqa: E402

SETTINGS = Settings.from_env()
API_PORT = 8080 + SETTINGS.offset
ROOM_PORT = 8070 + SETTINGS.offset  # the waiting room (tests/faults/run.sh starts it for this suite)
RUN_DIR = pathlib.Path(os.environ["RUN_DIR"])
# A request with no answer within this long counts as hanging: the API answers in milliseconds.
TIMEOUT_S = 15


class Answer:
    def __init__(self, status, headers, body, seconds):
        self.status, self.headers, self.body, self.seconds = status, headers, body, seconds

    def __repr__(self):
        return f"<{self.status} in {self.seconds:.2f}s: {self.body[:200]!r}>"


def request(method, path, body=None, headers=None, timeout=TIMEOUT_S, port=API_PORT):
    """One request on a fresh connection; raw bytes in and out, so nothing is normalised on the way.
    Returns an Answer; status 0 when the server closed the connection without an answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    start = time.time()
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", f"127.0.0.1:{port}")
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        res = conn.getresponse()
        data = res.read()
        return Answer(res.status, dict(res.getheaders()), data, time.time() - start)
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
        return Answer(0, {}, str(e).encode(), time.time() - start)
    finally:
        conn.close()


def raw_request(method, target, headers=None, timeout=TIMEOUT_S):
    """A request line sent byte for byte (`target` may hold spaces, raw UTF-8, control characters),
    on a connection the server is asked to close; the status line is parsed from what comes back."""
    import socket

    head = method.encode() + b" " + (target if isinstance(target, bytes) else target.encode()) + b" HTTP/1.1\r\n"
    head += f"Host: 127.0.0.1:{API_PORT}\r\nConnection: close\r\n".encode()
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n".encode()
    start = time.time()
    data = b""
    with socket.create_connection(("127.0.0.1", API_PORT), timeout=timeout) as s:
        s.sendall(head + b"\r\n")
        try:
            while chunk := s.recv(65536):
                data += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    status = 0
    if data.startswith(b"HTTP/"):
        status = int(data.split(b" ", 2)[1])
    return Answer(status, {}, data.split(b"\r\n\r\n", 1)[-1], time.time() - start)


def token(sub, **kw):
    return tokens.token(sub, SETTINGS.secret, **kw)


def bearer(tok):
    return {"Authorization": f"Bearer {tok}"}


@pytest.fixture(scope="session")
def db():
    conn = SETTINGS.connect_db(connect_timeout=30)
    yield conn
    conn.close()


def rows_of(db, coupon, users=None):
    """user_id of the coupon's rows (of `users` only, if given), compared byte for byte."""
    with db.cursor() as cur:
        cur.execute("SELECT user_id FROM issued_coupons WHERE coupon_id = %s", (coupon,))
        found = [u for (u,) in cur.fetchall()]
    return [u for u in found if users is None or u in users]


@pytest.fixture(scope="session")
def coupon():
    """A coupon of its own, open now, with stock for every valid request of the suite."""
    cid = int(time.time() * 1000) * 10 + 9
    Api(SETTINGS).register(cid, 100_000)
    return cid


def wait_rows(db, coupon, expected, timeout=60):
    """The coupon's rows once there are `expected` of them (or the timeout passed)."""
    deadline = time.time() + timeout
    while True:
        found = rows_of(db, coupon)
        if len(found) >= expected or time.time() > deadline:
            return found
        time.sleep(0.5)
