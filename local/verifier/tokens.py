"""HS256 JSON Web Tokens (RFC 7519) as the services accept them: the project's one Python signer.

Standard library only, so tests without the verifier's dependencies can import it too.
"""

import base64
import hashlib
import hmac
import json
import os
import time

# The local harness's secret (docs/contract.md); JWT_SECRET overrides it.
DEV_SECRET = "local-dev-secret-change-me-0123456789abcdef"
_HEADER = {"alg": "HS256", "typ": "JWT"}


def default_secret():
    return os.environ.get("JWT_SECRET") or DEV_SECRET


def _b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _segment(obj):
    return _b64url(json.dumps(obj, separators=(",", ":")).encode())


def sign(claims, secret):
    """The compact serialization of `claims` signed with HMAC-SHA256."""
    signing_input = f"{_segment(_HEADER)}.{_segment(claims)}"
    mac = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64url(mac)}"


def token(sub, secret=None, admin=False, ttl=3600, now=None):
    """A token for user `sub` valid for `ttl` seconds; `admin` adds the admin role."""
    issued = int(time.time() if now is None else now)
    claims = {"sub": sub, "iat": issued, "exp": issued + ttl}
    if admin:
        claims["roles"] = ["admin"]
    return sign(claims, default_secret() if secret is None else secret)
