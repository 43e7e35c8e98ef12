"""The pure series of the run's HTML report (local/report/render.py): what its charts plot. The report
in chromium is tests/browser/test_report.py."""

import render


def test_admissions_group_into_the_rooms_steps():
    t0 = 10_000
    admitted = [t0 + 1000, t0 + 1000, t0 + 1040, t0 + 3000, t0 + 3001, t0 + 5200]
    assert render.steps(admitted, t0) == [(1.0, 3), (3.0, 2), (5.2, 1)]


def test_waiting_counts_only_queued_users_until_let_out():
    t0 = 0
    js = [
        {"joinState": "QUEUED", "joinedAt": 0, "admittedAt": 1000},
        {"joinState": "QUEUED", "joinedAt": 500, "soldOutAt": 2000},
        {"joinState": "ADMITTED", "joinedAt": 100, "admittedAt": 100},
    ]
    series = dict(render.waiting(js, t0, 2.5))
    assert series[0.0] == 1 and series[0.5] == 2 and series[1.0] == 1 and series[2.0] == 0


def test_the_consumers_backlog_is_reserved_minus_written():
    rows = [(0, 250), (100, 1000), (200, 1000)]
    series = dict(render.backlog(rows, 0, 1.2))
    assert series[0.0] == 1 and series[0.2] == 3 and series[0.3] == 2 and series[1.0] == 0


def test_p95_per_second_and_counts_per_second():
    pairs = [(0, v) for v in range(1, 21)] + [(1500, 7)]
    assert render.p95_per_second(pairs, 0) == [(0, 19), (1, 7)]
    assert render.per_second([0, 10, 2500], 0) == [(0, 2), (1, 0), (2, 1)]


def test_a_chart_without_points_is_left_out():
    assert render.chart("nothing", [("empty", [])]) == ""
    svg = render.chart("one", [("line", [(0, 1), (2, 4)])])
    assert svg.startswith("<svg") and "<polyline" in svg and 'aria-label="one"' in svg
