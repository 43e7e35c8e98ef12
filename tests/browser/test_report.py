"""The run's HTML report (local/report/render.py: make demo, make bench) in chromium: its charts
are drawn, nothing is fetched from the network (the machine has none), and k6's own dashboard shows
inside it. Screenshots in build/browser/report*.png."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, shot

RENDER = ROOT / "local" / "report" / "render.py"
# make test runs make demo's spike at small scale into build/waiting-room just before this suite;
# else the last make demo's
DEMO_REPORTS = [ROOT / "build" / "waiting-room" / "report.html", ROOT / "build" / "demo" / "report.html"]


def synthetic_run(out):
    """A small run through the room: 60 users arriving over 3 s, all queued, let in 20 at a time
    every 2 s, each issued 50 ms after its admission."""
    t0 = 1_800_000_000_000
    lines = []
    for u in range(60):
        sent = t0 + u * 50
        admitted = t0 + 1000 + (u // 20) * 2000
        j = {
            "user": f"user-{u}",
            "sentAt": sent,
            "joinedAt": sent + 5 + u % 7,
            "joinState": "QUEUED",
            "position": u,
            "etaS": 1 + u // 20 * 2,
            "polls": 2,
            "state": "ADMITTED",
            "endedAt": admitted + 20,
            "admittedAt": admitted,
            "admittedSeenAt": admitted + 20,
            "issue": "accepted",
            "issuedAt": admitted + 70,
            "end": "accepted",
        }
        text = json.dumps(j).replace('"', '\\"')
        lines.append(f'time="2027-01-15T08:00:0{u // 20}Z" level=info msg="WR_JOURNEY {text}" source=console')
    (out / "journeys.log").write_text("\n".join(lines) + "\n")
    k6 = {
        "scenario": "waiting-room",
        "coupon_id": 4242,
        "users": 60,
        "requests": 60,
        "accepted": 60,
        "sold_out": 0,
        "shed": 0,
        "unexpected": 0,
        "p95_ms": 70,
        "wr_joined": 60,
        "wr_queued": 60,
        "wr_admitted": 60,
    }
    (out / "k6-summary.json").write_text(json.dumps(k6))
    checks = {"never over-issued": True, "every 202 persisted": True, "waiting room: admission follows arrival": True}
    (out / "summary.json").write_text(json.dumps({"k6": k6, "verification": {"checks": checks, "passed": True}}))


def render(out):
    env = {k: v for k, v in os.environ.items() if k != "DB_URL"}  # no rows for a made-up coupon
    res = subprocess.run([sys.executable, str(RENDER), str(out)], env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert f"report: {out}/report.html" in res.stdout
    return out / "report.html"


def open_offline(page, path):
    """Opens the file and returns the addresses it asked the network for (must be none)."""
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if r.url.startswith(("http:", "https:")) else None)
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return fetched


def test_report_draws_the_timeline_offline(page, tmp_path):
    synthetic_run(tmp_path)
    report = render(tmp_path)
    fetched = open_offline(page, report)
    charts = page.locator("svg[role=img]")
    titles = [charts.nth(i).get_attribute("aria-label") for i in range(charts.count())]
    assert titles == ["Users waiting in the queue", "Users admitted per admission step", "Answer time p95 per second"]
    for i in range(charts.count()):
        box = charts.nth(i).bounding_box()
        assert box and box["width"] > 600 and box["height"] > 150, (titles[i], box)
    # three admission steps of 20 users each, drawn as three bars
    assert charts.nth(1).locator("rect[opacity]").count() == 3
    assert page.locator("td.pass").count() == 3 and page.locator("td.fail").count() == 0
    assert page.get_by_text("verdict: PASS").is_visible()
    assert fetched == []
    shot(page, "report-synthetic")


def test_the_demo_report_shows_k6s_dashboard_offline(page):
    report = next((p for p in DEMO_REPORTS if p.exists()), None)
    if report is None:
        pytest.skip("no report of a demo run: make test-waiting-room writes one before this suite")
    fetched = open_offline(page, report)
    assert page.locator("svg[role=img]").count() >= 1
    frame = page.frame_locator("iframe.k6")
    # k6's report draws its charts with its own script, inlined in the exported file
    frame.locator("text=Overview").first.wait_for(timeout=20000)
    assert fetched == []
    shot(page, "report-demo")
