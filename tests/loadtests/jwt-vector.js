// loadtests/lib/jwt.js against the published jwt.io HS256 vector, the same one the Python signer
// (local/verifier/tokens.py) is tested with, and userToken's hand-built claims against sign() of the
// same claims: k6 exits non-zero when a check fails.
import { check } from 'k6';
import { sign, userToken } from '../../loadtests/lib/jwt.js';

export const options = { vus: 1, iterations: 1, thresholds: { checks: ['rate==1'] } };

const VECTOR =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.' +
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

function same(sub, ttl) {
  // A second boundary between the two calls would change iat: try again once.
  for (let i = 0; i < 2; i++) {
    const now = Math.floor(Date.now() / 1000);
    const token = userToken(sub, 'your-256-bit-secret', ttl);
    if (Math.floor(Date.now() / 1000) === now)
      return token === sign({ sub, iat: now, exp: now + ttl }, 'your-256-bit-secret');
  }
  return false;
}

export default function () {
  const token = sign({ sub: '1234567890', name: 'John Doe', iat: 1516239022 }, 'your-256-bit-secret');
  check(token, { 'HS256 vector': (t) => t === VECTOR });
  check(null, {
    'userToken signs {sub, iat, exp}': () => same('user-42', 3600),
    'userToken escapes the user id as JSON': () => same('user-"quoted"\\é', 60),
    "userToken reuses a user's token": () => userToken('user-7', 'k', 3600) === userToken('user-7', 'k', 3600),
    'userToken signs per user': () => userToken('user-8', 'k', 3600) !== userToken('user-9', 'k', 3600),
  });
}
