"""The waiting room's checks (local/verifier/waiting_room.py): each fails on its own case."""

from verifier.waiting_room import RoomObserved, evaluate, load_journeys, parse_journey, percentile

W = 2000


def journey(
    user, sent, joined=None, state="ADMITTED", join_state="QUEUED", admitted=None, eta=None, issue="accepted", **kw
):
    j = {
        "user": user,
        "sentAt": sent,
        "joinedAt": joined if joined is not None else sent + 10,
        "joinState": join_state,
        "state": state,
        "etaS": eta,
        "endedAt": (admitted or sent) + 20,
    }
    if admitted is not None:
        j.update(admittedAt=admitted, admittedSeenAt=admitted + 20, issue=issue, issuedAt=admitted + 50, end=issue)
    else:
        j["end"] = state
    j.update(kw)
    return j


def room(journeys, issued=None):
    if issued is None:
        issued = [j["user"] for j in journeys if j.get("issue") == "accepted"]
    return RoomObserved(journeys, W, issued)


def checks(r):
    return {c.name: c.ok for c in evaluate(r)}


def in_order():
    return [
        journey(f"u{i}", 1000 * i, admitted=100_000 + 500 * i, eta=(100_000 + 500 * i - 1000 * i - 10) // 1000)
        for i in range(10)
    ]


def test_a_run_in_order_passes_every_check():
    r = room(in_order())
    assert all(checks(r).values())
    assert r.figures()["order_inversions"] == 0


def test_parses_plain_and_logfmt_console_lines():
    j = {"user": "u1", "sentAt": 1}
    assert parse_journey('WR_JOURNEY {"user":"u1","sentAt":1}') == j
    assert (
        parse_journey('time="x" level=info msg="WR_JOURNEY {\\"user\\":\\"u1\\",\\"sentAt\\":1}" source=console') == j
    )
    assert parse_journey("something else") is None
    assert parse_journey("WR_JOURNEY {broken") is None


def test_load_journeys_skips_other_lines(tmp_path):
    f = tmp_path / "k6.log"
    f.write_text('noise\nWR_JOURNEY {"user":"a","sentAt":1}\nWR_JOURNEY {"user":"b","sentAt":2}\n')
    assert [j["user"] for j in load_journeys(f)] == ["a", "b"]


def test_an_admission_beyond_one_sub_window_out_of_order_fails():
    js = in_order()
    js[0]["admittedAt"] = js[9]["admittedAt"] + W + 1  # the first arrival let in long after the last
    r = room(js)
    assert not checks(r)["waiting room: admission follows arrival"]
    assert r.inversions() > 0


def test_an_inversion_within_one_sub_window_is_allowed():
    js = in_order()
    js[0]["admittedAt"], js[1]["admittedAt"] = js[1]["admittedAt"], js[0]["admittedAt"]
    assert checks(room(js))["waiting room: admission follows arrival"]


def test_two_coupons_or_a_coupon_without_admission_fail():
    js = in_order()
    assert not checks(room(js, [j["user"] for j in js] + ["u3"]))["waiting room: one coupon per admitted user"]
    assert not checks(room(js, ["stranger"]))["waiting room: one coupon per admitted user"]


def test_a_user_left_waiting_fails():
    js = in_order() + [journey("stuck", 500, state="QUEUED", admitted=None, end="QUEUED")]
    assert not checks(room(js))["waiting room: every user answered"]


def sold_out_run(told_after_ms, poll_after_ms=3000):
    js = in_order()  # the last accepted issuance is at 104,500 + 50
    js.append(
        journey(
            "late",
            50_000,
            state="SOLD_OUT",
            admitted=None,
            soldOutAt=104_550 + told_after_ms,
            lastPollAfterMs=poll_after_ms,
        )
    )
    return room(js)


def test_sold_out_within_the_poll_interval_passes():
    r = sold_out_run(2500)
    assert checks(r)["waiting room: sold-out reached every waiting user within one poll interval"]
    assert r.figures()["soldout_propagation_s"] == 2.5


def test_sold_out_told_later_than_the_poll_interval_fails():
    r = sold_out_run(3000 + 2000 + 1)
    assert not checks(r)["waiting room: sold-out reached every waiting user within one poll interval"]


def test_a_user_queued_after_the_sell_out_fails():
    js = sold_out_run(1000).journeys + [journey("after", 120_000, state="SOLD_OUT", admitted=None, soldOutAt=125_000)]
    assert not checks(room(js))["waiting room: sold-out reached every waiting user within one poll interval"]


def test_eta_error_p90_beyond_the_target_fails():
    js = in_order()
    for j in js:
        j["etaS"] = 200  # estimates twice the actual wait
    r = room(js)
    assert not checks(r)["waiting room: ETA error p90"]
    assert r.figures()["eta_error_p90_pct"] > 20


def test_a_reported_eta_error_is_information_not_a_failure():
    js = in_order()
    for j in js:
        j["etaS"] = 200
    r = RoomObserved(js, W, [j["user"] for j in js], eta_reported=True)
    eta = [c for c in evaluate(r) if c.name == "waiting room: ETA error p90"][0]
    assert eta.ok is None
    assert "not met" in eta.detail


def test_max_waiting_counts_overlapping_waits():
    js = [journey(f"w{i}", i, admitted=1000 + i) for i in range(5)]
    assert room(js).max_waiting() == 5


def test_percentile_is_nearest_rank():
    assert percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90) == 9
    assert percentile([], 90) is None
