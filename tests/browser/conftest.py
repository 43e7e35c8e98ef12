"""The browser suite's fixtures: the local stack's addresses, the one-host front (local/front.py)
and Debian's chromium driven by Playwright. tests/browser/run.sh starts the stack first."""

import json
import os
import pathlib
import threading
import time
import urllib.request

import pytest

from front import handler  # local/front.py
from verifier import harness, tokens
from verifier.settings import Settings

ROOT = pathlib.Path(__file__).resolve().parents[2]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# headless, nothing fetched by the browser on its own
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = ROOT / "build" / "browser"


@pytest.fixture(scope="session")
def settings():
    return Settings.from_env()


@pytest.fixture(scope="session")
def stack(settings):
    """The room's and the API's addresses, and the admin calls the tests need."""
    offset = settings.offset
    return Stack(settings, room=f"http://127.0.0.1:{8070 + offset}", room_mgmt=f"http://127.0.0.1:{8071 + offset}")


class Stack:
    def __init__(self, settings, room, room_mgmt):
        self.settings = settings
        self.room = room
        self.room_mgmt = room_mgmt
        self.api = harness.Api(settings)

    def admin_token(self):
        return tokens.token("admin", self.settings.secret, admin=True)

    def user_token(self, user):
        return tokens.token(user, self.settings.secret)

    def zone(self, coupon, timeout=120, **controls):
        """Puts the coupon's zone controls; a 503 (the room could not ask the API about the coupon yet,
        as on a starved host) is tried again, as a client would."""
        deadline = time.time() + timeout
        while True:
            status, answer = harness.http(
                "PUT",
                f"{self.room}/api/v1/admin/waiting-room/zones/coupon-{coupon}",
                controls,
                self.admin_token(),
                timeout=30,
            )
            if status not in (0, 503) or time.time() > deadline:
                break
            time.sleep(2)
        assert status == 200, answer
        return answer

    def queue_length(self, coupon):
        with urllib.request.urlopen(f"{self.room_mgmt}/actuator/prometheus", timeout=5) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("coupon_waiting_room_queue_length{") and f'zone="coupon-{coupon}"' in line:
                    return float(line.rsplit(" ", 1)[1])
        return 0.0

    def wait_queue(self, coupon, at_least, timeout=150):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.queue_length(coupon) >= at_least:
                return
            time.sleep(0.5)
        raise AssertionError(f"the queue of coupon {coupon} never reached {at_least}")

    def rows_of(self, coupon, user, timeout=60):
        """The user's issued_coupons rows, read as the verifier reads them, once the consumer wrote."""
        db = harness.Database(self.settings)
        try:
            deadline = time.time() + timeout
            while True:
                rows = [r for r in db.issued(coupon) if r[0] == user]
                if rows or time.time() > deadline:
                    return rows
                time.sleep(1)
        finally:
            db.close()


@pytest.fixture(scope="session")
def front(settings):
    """local/front.py in this process: the page and the room's calls to the room, the API's to the API."""
    import http.server

    offset = settings.offset
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), handler(("127.0.0.1", 8070 + offset), ("127.0.0.1", 8080 + offset))
    )
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} missing: scripts/tools.sh browser"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="en-US", viewport={"width": 900, "height": 700})
    pg = context.new_page()
    yield pg
    context.close()


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def journeys(path):
    """The WR_JOURNEY lines of a k6 console output."""
    out = []
    for line in pathlib.Path(path).read_text().splitlines():
        i = line.find("WR_JOURNEY ")
        if i >= 0:
            text = line[i + len("WR_JOURNEY ") :]
            # k6's console output quotes the message: msg="WR_JOURNEY {...}"
            text = text.rstrip('"').replace('\\"', '"')
            out.append(json.loads(text))
    return out
