import base64
import json

from verifier import tokens

# RFC 7519-style HS256 vector published by jwt.io (and reproduced by every JWT library's tests).
VECTOR_CLAIMS = {"sub": "1234567890", "name": "John Doe", "iat": 1516239022}
VECTOR_SECRET = "your-256-bit-secret"
VECTOR_TOKEN = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def claims_of(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_sign_matches_the_known_vector():
    assert tokens.sign(VECTOR_CLAIMS, VECTOR_SECRET) == VECTOR_TOKEN


def test_a_different_secret_gives_a_different_signature():
    assert tokens.sign(VECTOR_CLAIMS, VECTOR_SECRET + "x").rsplit(".", 1)[1] != VECTOR_TOKEN.rsplit(".", 1)[1]


def test_user_token_claims():
    assert claims_of(tokens.token("user-7", "s", ttl=600, now=1000)) == {"sub": "user-7", "iat": 1000, "exp": 1600}


def test_admin_token_carries_the_admin_role():
    assert claims_of(tokens.token("ops", "s", admin=True, now=0))["roles"] == ["admin"]


def test_no_padding_in_any_segment():
    assert "=" not in tokens.token("a", "s", now=1)


def test_secret_from_the_environment(monkeypatch):
    monkeypatch.setenv("JWT_SECRET", VECTOR_SECRET)
    assert tokens.default_secret() == VECTOR_SECRET
    monkeypatch.delenv("JWT_SECRET")
    assert tokens.default_secret() == tokens.DEV_SECRET
