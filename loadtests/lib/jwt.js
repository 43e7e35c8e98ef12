// HS256 JSON Web Tokens signed inside the script: k6 has no JWT module, but HMAC-SHA256 from
// k6/crypto plus unpadded base64url from k6/encoding is all RFC 7519 needs.
import crypto from 'k6/crypto';
import encoding from 'k6/encoding';

const HEADER = encoding.b64encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' }), 'rawurl');

export function sign(claims, secret) {
  const payload = encoding.b64encode(JSON.stringify(claims), 'rawurl');
  const signingInput = `${HEADER}.${payload}`;
  return `${signingInput}.${crypto.hmac('sha256', secret, signingInput, 'base64rawurl')}`;
}

// A user token: `sub` is the user id the API issues the coupon to.
export function userToken(sub, secret, ttlSeconds) {
  const now = Math.floor(Date.now() / 1000);
  return sign({ sub, iat: now, exp: now + ttlSeconds }, secret);
}
