// loadtests/lib/jwt.js against the published jwt.io HS256 vector, the same one the Python signer
// (local/verifier/tokens.py) is tested with: k6 exits non-zero when the check fails.
import { check } from 'k6';
import { sign } from '../../loadtests/lib/jwt.js';

export const options = { vus: 1, iterations: 1, thresholds: { checks: ['rate==1'] } };

const VECTOR =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.' +
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

export default function () {
  const token = sign({ sub: '1234567890', name: 'John Doe', iat: 1516239022 }, 'your-256-bit-secret');
  check(token, { 'HS256 vector': (t) => t === VECTOR });
}
