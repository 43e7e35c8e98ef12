"""Bad input against the running waiting room (issue 37, item 11): the request shapes the API refuses
are refused by the room too (415 for wildcard, form and multipart types, 400 for two Authorization
headers, 413 for a large admin body), malformed admin bodies are answered 4xx, never 5xx, and a
stalled client is dropped within the room's connection timeout. Nothing refused takes a place."""

import json

import pytest
from conftest import ROOM_PORT, bearer, request, token
from hypothesis import given
from test_bad_input import (
    CONTENT_TYPES,
    EXAMPLES,
    assert_answered_4xx,
    assert_stalls_dropped,
    bad_bodies,
    fresh_sub,
    status_with_two_credentials,
)

from verifier import tokens

# Refused before the coupon is looked up: any id will do.
COUPON = 9_300_000_001


def entries(coupon=COUPON):
    return f"/api/v1/waiting-room/coupons/{coupon}/entries"


def room(method, path, **kw):
    return request(method, path, port=ROOM_PORT, **kw)


def admin_token():
    from conftest import SETTINGS

    return tokens.token(fresh_sub("room-admin"), SETTINGS.secret, admin=True)


def has_no_place(sub):
    answer = room("GET", entries() + "/me", headers=bearer(token(sub)))
    # 404 (no place, or a coupon the API does not know), never a place
    assert answer.status != 200, f"{sub}: refused, yet answered {answer!r}"


@pytest.mark.parametrize(
    "content_type,body",
    [
        ("*/*", b"{}"),
        ("application/*", b"x"),
        ("multipart/form-data", b"x"),
        ("multipart/form-data; boundary=x", b"--x--"),
        ("application/x-www-form-urlencoded", b"%00"),
        ("application/x-www-form-urlencoded", None),
        (";;;", None),
    ],
)
def test_room_refuses_unsupported_types_with_415(content_type, body):
    sub = fresh_sub("room-ct")
    answer = room("POST", entries(), body=body, headers={**bearer(token(sub)), "Content-Type": content_type})
    assert answer.status == 415, (content_type, body, answer)
    has_no_place(sub)


def test_room_refuses_two_authorization_headers():
    a, b = fresh_sub("room-dup"), fresh_sub("room-dup")
    status = status_with_two_credentials(entries(), a, b, ROOM_PORT)
    assert status == 400, status
    has_no_place(a)
    has_no_place(b)


def test_room_refuses_a_huge_admin_body_with_413():
    body = json.dumps({"mode": "on", "pad": "x" * 1_000_000}).encode()
    answer = room(
        "PUT",
        f"/api/v1/admin/waiting-room/zones/coupon-{COUPON}",
        body=body,
        headers={**bearer(admin_token()), "Content-Type": "application/json"},
    )
    assert answer.status == 413, answer


@EXAMPLES
@given(body=bad_bodies(), content_type=CONTENT_TYPES)
def test_room_refuses_malformed_admin_bodies(body, content_type):
    headers = bearer(admin_token())
    if content_type is not None:
        headers["Content-Type"] = content_type
    answer = room("PUT", f"/api/v1/admin/waiting-room/zones/coupon-{COUPON}", body=body, headers=headers)
    assert_answered_4xx(answer, f"admin body {body[:60]!r} as {content_type}")


def test_room_drops_a_stalled_request():
    assert_stalls_dropped(f"/api/v1/admin/waiting-room/zones/coupon-{COUPON}", admin_token(), ROOM_PORT)
