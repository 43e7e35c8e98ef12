#!/usr/bin/env python3
"""The run's pictures: one self-contained HTML file beside summary.json (make demo, make bench).

    python3 local/report/render.py OUT_DIR [--title TEXT]   -> OUT_DIR/report.html (its path printed)

What it draws comes from what the run already wrote, read after k6 and the verifier are done:
- the verifier's verdict: OUT_DIR/summary.json (make demo) or OUT_DIR/<phase>.json (make bench);
- per k6 run (OUT_DIR/<name>.json as SUMMARY_PATH, its coupon in `coupon_id`), a timeline:
  - through the waiting room, the WR_JOURNEY lines of k6's console output (journeys.log,
    <name>.log): users waiting and admitted per admission step, the p95 of the join's and of the
    issuance's answer per second;
  - the coupon's rows in MariaDB (DB_URL, DB_USER, DB_PASSWORD as local/infra.sh env gives them,
    while the stack is up): reservations (202s) and rows written per second, and the consumer's
    backlog (reserved, not yet written), which is its lag in records;
  - without either, the ISSUE_OUTCOME lines (second resolution) for the 202s and 503s per second;
- k6's own web dashboard export of each run, <summary>.dashboard.html (loadtests/run.sh writes it
  when K6_DASHBOARD=1), embedded whole.
Inline SVG, no script, nothing fetched: it opens on a machine without a network. Standard library
and the verifier's journey reader only; the rows are read with the `mariadb` client when it is on PATH.
"""

import argparse
import glob
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from verifier.waiting_room import load_journeys, percentile

OUTCOME = re.compile(r'time="([^"]+)".*ISSUE_OUTCOME (\S+) (\w+)')
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]


# ---- inputs ---------------------------------------------------------------------------------------


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def journeys(path):
    """The WR_JOURNEY objects of a k6 console log: the verifier reads them the same way."""
    return load_journeys(path) if path and os.path.exists(path) else []


def outcomes(path):
    """(epoch second, outcome) of each ISSUE_OUTCOME line."""
    from datetime import datetime

    out = []
    if not path or not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            m = OUTCOME.search(line)
            if m:
                try:
                    t = datetime.fromisoformat(m.group(1).replace("Z", "+00:00")).timestamp()
                except ValueError:
                    continue
                out.append((t, m.group(3)))
    return out


def rows(coupon):
    """(reserved_ms, issued_ms) of the coupon's rows, or None when MariaDB cannot be asked."""
    url = os.environ.get("DB_URL", "")
    m = re.match(r"jdbc:(?:mysql|mariadb)://([^:/]+)(?::(\d+))?/(\w+)", url)
    client = shutil.which("mariadb") or shutil.which("mysql")
    if not m or not client or not coupon:
        return None
    sql = (
        "SET time_zone = '+00:00'; SELECT ROUND(UNIX_TIMESTAMP(reserved_at) * 1000), "
        f"ROUND(UNIX_TIMESTAMP(issued_at) * 1000) FROM issued_coupons WHERE coupon_id = {int(coupon)}"
    )
    env = dict(os.environ, MYSQL_PWD=os.environ.get("DB_PASSWORD", ""))
    try:
        res = subprocess.run(
            [
                client,
                "-h",
                m.group(1),
                "-P",
                m.group(2) or "3306",
                "-u",
                os.environ.get("DB_USER", "coupon"),
                "-N",
                "-B",
                m.group(3),
                "-e",
                sql,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0:
        return None
    return [(int(a), int(b)) for a, b in (line.split("\t") for line in res.stdout.split("\n") if "\t" in line)]


# ---- series ---------------------------------------------------------------------------------------


def per_second(times, t0):
    """Counts per whole second since t0 (ms), every second from 0 to the last one."""
    c = Counter(int((t - t0) // 1000) for t in times if t is not None and t >= t0)
    return [(s, c.get(s, 0)) for s in range(0, max(c) + 1)] if c else []


def p95_per_second(pairs, t0):
    """[(second, p95 of the values whose time falls in it)] for (time_ms, value) pairs."""
    buckets = {}
    for t, v in pairs:
        buckets.setdefault(int((t - t0) // 1000), []).append(v)
    return [(s, percentile(buckets[s], 95)) for s in sorted(buckets)]


def steps(admitted_ms, t0, gap_ms=250):
    """Admissions grouped into the room's steps: a new step after a pause of gap_ms."""
    out = []
    for t in sorted(admitted_ms):
        if out and t - out[-1][2] <= gap_ms:
            out[-1][1] += 1
            out[-1][2] = t
        else:
            out.append([t, 1, t])
    return [((first - t0) / 1000, n) for first, n, _ in out]


def waiting(js, t0, seconds):
    """Users in the queue at each tenth of a second: joined and answered QUEUED, not yet let out."""
    spans = []
    for j in js:
        if j.get("joinState") not in ("QUEUED", "PAUSED") or j.get("joinedAt") is None:
            continue
        end = j.get("admittedAt") or j.get("soldOutAt") or j.get("endedAt")
        spans.append((j["joinedAt"], end if end is not None else j["joinedAt"]))
    if not spans:
        return []
    out = []
    for k in range(0, int(seconds * 10) + 1):
        t = t0 + k * 100
        out.append((k / 10, sum(1 for a, b in spans if a <= t < b)))
    return out


def backlog(rs, t0, seconds):
    """Reserved (202) and not yet written, every tenth of a second: the consumer's lag in records."""
    reserved = sorted(r for r, _ in rs)
    written = sorted(w for _, w in rs)
    out, i, k = [], 0, 0
    for step in range(0, int(seconds * 10) + 1):
        t = t0 + step * 100
        while i < len(reserved) and reserved[i] <= t:
            i += 1
        while k < len(written) and written[k] <= t:
            k += 1
        out.append((step / 10, i - k))
    return out


# ---- SVG ------------------------------------------------------------------------------------------


def nice_max(v):
    if v <= 0:
        return 1
    mag = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * mag:
            return m * mag
    return 10 * mag


def fmt(v):
    return f"{v:,.0f}" if v == int(v) else f"{v:,.1f}"


def chart(title, series, *, x_label="seconds since the first arrival", y_label="", bars=False, width=920, height=250):
    """An SVG chart: series = [(label, [(x, y), ...])]; bars draws the first series as bars."""
    series = [(label, pts) for label, pts in series if pts]
    if not series:
        return ""
    left, right, top, bottom = 70, 20, 48, 44
    w, h = width - left - right, height - top - bottom
    xmax = max(x for _, pts in series for x, _ in pts) or 1
    if bars:
        xmax *= 1.08  # room for the last bar
    ymax = nice_max(max(y for _, pts in series for _, y in pts))
    sx = lambda x: left + w * x / xmax  # noqa: E731
    sy = lambda y: top + h - h * y / ymax  # noqa: E731
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="{html.escape(title)}">',
        f'<text x="{left}" y="20" class="t">{html.escape(title)}</text>',
    ]
    for k in range(0, 5):
        y = ymax * k / 4
        out.append(
            f'<line x1="{left}" x2="{left + w}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" class="g"/>'
            f'<text x="{left - 6}" y="{sy(y) + 4:.1f}" class="a" text-anchor="end">{fmt(y)}</text>'
        )
    xstep = nice_max(xmax / 8)
    x = 0
    while x <= xmax + 1e-9:
        out.append(f'<text x="{sx(x):.1f}" y="{top + h + 16}" class="a" text-anchor="middle">{fmt(x)}</text>')
        x += xstep
    out.append(
        f'<text x="{left + w / 2}" y="{height - 6}" class="a" text-anchor="middle">{html.escape(x_label)}</text>'
    )
    if y_label:
        out.append(
            f'<text x="14" y="{top + h / 2}" class="a" text-anchor="middle" '
            f'transform="rotate(-90 14 {top + h / 2})">{html.escape(y_label)}</text>'
        )
    for i, (label, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        if bars and i == 0:
            bw = max(2.0, min(w / max(len(pts), 1) * 0.6, w * 0.35 / max(xmax, 1)))
            for px, py in pts:
                out.append(
                    f'<rect x="{sx(px) - bw / 2:.1f}" y="{sy(py):.1f}" width="{bw:.1f}" '
                    f'height="{max(0.0, top + h - sy(py)):.1f}" fill="{colour}" opacity="0.8"/>'
                )
        else:
            d = " ".join(f"{sx(px):.1f},{sy(py):.1f}" for px, py in pts)
            out.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="1.8"/>')
        lx = left + i * 260
        out.append(
            f'<rect x="{lx}" y="{top - 20}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{lx + 14}" y="{top - 11}" class="a">{html.escape(label)}</text>'
        )
    out.append(
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + h}" class="ax"/>'
        f'<line x1="{left}" x2="{left + w}" y1="{top + h}" y2="{top + h}" class="ax"/></svg>'
    )
    return "\n".join(out)


# ---- the report -----------------------------------------------------------------------------------


def verdict_table(verification):
    checks = (verification or {}).get("checks") or {}
    if not checks:
        return ""
    rows_html = "".join(
        f'<tr><td class="{"pass" if ok else "fail"}">{"PASS" if ok else "FAIL"}</td><td>{html.escape(name)}</td></tr>'
        for name, ok in checks.items()
    )
    return f'<table class="checks">{rows_html}</table>'


def figures(k6):
    keys = [
        ("users", "users"),
        ("requests", "issuance POSTs"),
        ("accepted", "202 accepted"),
        ("sold_out", "410 sold out"),
        ("shed", "503 shed"),
        ("not_open", "403 not open"),
        ("unexpected", "unexpected"),
        ("p95_ms", "issuance p95 ms"),
        ("p99_ms", "issuance p99 ms"),
        ("wr_joined", "joined the room"),
        ("wr_queued", "queued"),
        ("wr_admitted", "admitted"),
        ("wr_join_p95_ms", "join p95 ms"),
        ("wr_poll_p95_ms", "poll p95 ms"),
    ]
    cells = [
        f"<tr><td>{label}</td><td>{round(k6[key]):,}</td></tr>"
        if isinstance(k6.get(key), (int, float))
        else f"<tr><td>{label}</td><td></td></tr>"
        for key, label in keys
        if key in (k6 or {})
    ]
    return f'<table class="figures">{"".join(cells)}</table>' if cells else ""


def run_section(name, k6, log, dashboard, verification):
    parts = [f"<h2>{html.escape(name)}</h2>"]
    scenario = (k6 or {}).get("scenario", "")
    coupon = (k6 or {}).get("coupon_id")
    parts.append(f'<p class="sub">scenario {html.escape(str(scenario))}, coupon {html.escape(str(coupon))}</p>')
    parts.append('<div class="row">' + figures(k6) + verdict_table(verification) + "</div>")
    js = journeys(log)
    rs = rows(coupon)
    t0 = None
    if js:
        t0 = min(j["sentAt"] for j in js)
    elif rs:
        t0 = min(r for r, _ in rs)
    charts = []
    if t0 is not None:
        ends = [t for j in js for t in (j.get("endedAt"), j.get("issuedAt")) if t] + [w for _, w in (rs or [])]
        seconds = max(1.0, (max(ends) - t0) / 1000 if ends else 1.0)
        if js:
            charts.append(chart("Users waiting in the queue", [("waiting", waiting(js, t0, seconds))], y_label="users"))
            admitted = [j["admittedAt"] for j in js if j.get("admittedAt")]
            charts.append(
                chart(
                    "Users admitted per admission step",
                    [("admitted in the step", steps(admitted, t0))],
                    bars=True,
                    y_label="users",
                )
            )
            charts.append(
                chart(
                    "Answer time p95 per second",
                    [
                        (
                            "join (arrival → place in line)",
                            p95_per_second(
                                [(j["sentAt"], j["joinedAt"] - j["sentAt"]) for j in js if j.get("joinedAt")], t0
                            ),
                        ),
                        (
                            "issuance (admitted → 202/410)",
                            p95_per_second(
                                [
                                    (j["admittedSeenAt"], j["issuedAt"] - j["admittedSeenAt"])
                                    for j in js
                                    if j.get("issuedAt") and j.get("admittedSeenAt")
                                ],
                                t0,
                            ),
                        ),
                    ],
                    y_label="ms",
                )
            )
        if rs:
            charts.append(
                chart(
                    "Issuances per second",
                    [
                        ("reserved (202)", per_second([r for r, _ in rs], t0)),
                        ("written to MariaDB by the consumer", per_second([w for _, w in rs], t0)),
                    ],
                    y_label="per second",
                )
            )
            charts.append(
                chart(
                    "Consumer lag: reserved, not yet written",
                    [("records", backlog(rs, t0, seconds))],
                    y_label="records",
                )
            )
    if not rs:
        oc = outcomes(log)
        if oc:
            s0 = min(t for t, _ in oc) * 1000
            charts.append(
                chart(
                    "Issuance answers per second (k6's outcome lines)",
                    [
                        ("202 accepted", per_second([t * 1000 for t, o in oc if o == "accepted"], s0)),
                        ("503 shed", per_second([t * 1000 for t, o in oc if o == "shed"], s0)),
                    ],
                    x_label="seconds since the first answer logged",
                    y_label="per second",
                )
            )
    if not charts:
        parts.append('<p class="sub">No timeline recorded for this run (no journeys, no rows reachable).</p>')
    parts.extend(f'<div class="chart">{c}</div>' for c in charts if c)
    if dashboard and os.path.exists(dashboard):
        with open(dashboard, errors="replace") as f:
            doc = f.read()
        parts.append(
            f'<h3>k6 web dashboard <a href="{html.escape(os.path.basename(dashboard))}">'
            f"(open alone)</a></h3>"
            f'<iframe class="k6" title="k6 web dashboard of {html.escape(name)}" '
            f'srcdoc="{html.escape(doc, quote=True)}"></iframe>'
        )
    return "\n".join(parts)


def runs(out):
    """(name, k6 summary, console log, dashboard, verification) of each k6 run in out."""
    found = []
    demo = os.path.join(out, "k6-summary.json")
    if os.path.exists(demo):
        summary = load_json(os.path.join(out, "summary.json")) or {}
        log = next(
            (p for p in (os.path.join(out, "journeys.log"), os.path.join(out, "k6.log")) if os.path.exists(p)), None
        )
        found.append(
            (
                "the spike",
                load_json(demo) or summary.get("k6"),
                log,
                os.path.join(out, "k6-summary.dashboard.html"),
                summary.get("verification"),
            )
        )
        return found
    for path in sorted(glob.glob(os.path.join(out, "*-k6.json"))):
        name = os.path.basename(path)[: -len("-k6.json")]
        judged = load_json(os.path.join(out, f"{name}.json")) or {}
        found.append(
            (
                name,
                load_json(path),
                os.path.join(out, f"{name}-k6.log"),
                path[: -len(".json")] + ".dashboard.html",
                judged.get("verification"),
            )
        )
    return found


STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:980px;color:#222}
h1{font-size:22px;margin-bottom:4px}h2{margin-top:36px;border-bottom:1px solid #ccc}
.sub{color:#555;margin-top:0}.row{display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start}
table{border-collapse:collapse}td{padding:2px 10px;border-bottom:1px solid #eee}
.figures td:last-child{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#17803d;font-weight:bold}.fail{color:#c62828;font-weight:bold}
.chart{margin:14px 0}svg .t{font-weight:bold;font-size:14px}svg .a{font-size:11px;fill:#444}
svg .g{stroke:#e4e4e4}svg .ax{stroke:#888}
iframe.k6{width:100%;height:900px;border:1px solid #ccc}
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="the run's folder (build/demo, build/bench)")
    ap.add_argument("--title", default=None)
    a = ap.parse_args(argv)
    found = runs(a.out)
    if not found:
        print(f"report: no k6 summary in {a.out}", file=sys.stderr)
        return 1
    summary = load_json(os.path.join(a.out, "summary.json")) or {}
    verdict = (summary.get("verification") or {}).get("passed")
    title = a.title or f"coupon-event run: {os.path.basename(os.path.abspath(a.out))}"
    head = (
        ""
        if verdict is None
        else (f'<p class="{"pass" if verdict else "fail"}">verdict: {"PASS" if verdict else "FAIL"}</p>')
    )
    body = head + "\n".join(run_section(*r) for r in found)
    subtitle = (
        "summary: summary.json in this folder; charts from the run's own records "
        "(k6's journeys and outcome lines, the coupon's rows in MariaDB)"
    )
    path = os.path.join(a.out, "report.html")
    with open(path, "w") as f:
        f.write(page(title, subtitle, body))
    print(f"report: {path}")
    return 0


def page(title, subtitle, body):
    """A self-contained HTML page around sections of charts and tables (also the cluster test's)."""
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
        f'<p class="sub">{html.escape(subtitle)}</p>{body}</body></html>'
    )


if __name__ == "__main__":
    sys.exit(main())
