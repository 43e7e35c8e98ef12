// HS256 JSON Web Tokens signed inside the script: k6 has no JWT module, but HMAC-SHA256 from
// k6/crypto plus unpadded base64url from k6/encoding is all RFC 7519 needs.
import crypto from 'k6/crypto';
import encoding from 'k6/encoding';

const HEADER = encoding.b64encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' }), 'rawurl');

export function sign(claims, secret) {
  return signPayload(JSON.stringify(claims), secret);
}

function signPayload(json, secret) {
  const signingInput = `${HEADER}.${encoding.b64encode(json, 'rawurl')}`;
  return `${signingInput}.${crypto.hmac('sha256', secret, signingInput, 'base64rawurl')}`;
}

// k6 runs on the cores it measures: a token costs the client CPU the system under test could use.
// The time claims change once a second, so their JSON text is built once a second, and a token is
// signed once per user and VU: a user's retries, second click and status polls reuse it.
const CACHE_SIZE = 1000;
const cache = new Map(); // sub -> {token, exp}
let claimsSecond = -1;
let claimsTtl = -1;
let claimsTail = '';
// The issuer and audience the services check, when the event sets them (global.jwt.issuer/audience).
const ISSUER_AUDIENCE =
  (__ENV.JWT_ISSUER ? `,"iss":${JSON.stringify(__ENV.JWT_ISSUER)}` : '') +
  (__ENV.JWT_AUDIENCE ? `,"aud":${JSON.stringify(__ENV.JWT_AUDIENCE)}` : '');

// A user token: `sub` is the user id the API issues the coupon to. The same bytes as
// sign({ sub, iat, exp }, secret), plus iss and aud when given.
export function userToken(sub, secret, ttlSeconds) {
  const now = Math.floor(Date.now() / 1000);
  const hit = cache.get(sub);
  // Reused while more than half its lifetime is left.
  if (hit !== undefined && hit.exp - now > ttlSeconds / 2) return hit.token;
  if (now !== claimsSecond || ttlSeconds !== claimsTtl) {
    claimsTail = `,"iat":${now},"exp":${now + ttlSeconds}${ISSUER_AUDIENCE}}`;
    claimsSecond = now;
    claimsTtl = ttlSeconds;
  }
  const token = signPayload(`{"sub":${JSON.stringify(sub)}${claimsTail}`, secret);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value);
  cache.set(sub, { token, exp: now + ttlSeconds });
  return token;
}
