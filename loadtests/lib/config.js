// Every knob of the scenarios comes from the environment (`k6 run -e KEY=value` or the TestRun's
// env), so the same files run unchanged locally and inside a k6-operator TestRun.

export function str(name, fallback) {
  const v = __ENV[name];
  return v === undefined || v === '' ? fallback : v;
}

export function int(name, fallback) {
  const v = str(name, undefined);
  if (v === undefined) return fallback;
  const n = parseInt(v, 10);
  if (Number.isNaN(n)) throw new Error(`${name} must be an integer, got "${v}"`);
  return n;
}

export function num(name, fallback) {
  const v = str(name, undefined);
  if (v === undefined) return fallback;
  const n = parseFloat(v);
  if (Number.isNaN(n)) throw new Error(`${name} must be a number, got "${v}"`);
  return n;
}

export function bool(name, fallback) {
  const v = str(name, undefined);
  if (v === undefined) return fallback;
  return !['0', 'false', 'no', 'off'].includes(v.toLowerCase());
}

// "1m30s", "500ms", "20s", "2m" or a bare number of seconds -> seconds.
export function seconds(text) {
  const s = String(text).trim();
  if (/^\d+(\.\d+)?$/.test(s)) return parseFloat(s);
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let matched = '';
  let m;
  while ((m = re.exec(s)) !== null) {
    const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2]];
    total += parseFloat(m[1]) * unit;
    matched += m[0];
  }
  if (matched !== s) throw new Error(`cannot read duration "${text}"`);
  return total;
}

// Settings every scenario shares.
export const common = {
  baseUrl: str('BASE_URL', 'http://127.0.0.1:8080').replace(/\/+$/, ''),
  couponId: str('COUPON_ID', '1'),
  jwtSecret: str('JWT_SECRET', 'local-dev-secret-change-me-0123456789abcdef'),
  userPrefix: str('USER_PREFIX', 'user-'),
  userOffset: int('USER_OFFSET', 0),
  tokenTtl: int('TOKEN_TTL_SECONDS', 3600),
  p95: num('P95_MS', 500),
  p99: num('P99_MS', 1500),
  // Latency targets are k6 thresholds (a failed run) only when judged; otherwise the summary
  // reports them as met or missed (make demo, make bench: k6 shares the cores it measures).
  latencyJudged: bool('LATENCY_JUDGED', false),
  summaryPath: str('SUMMARY_PATH', ''),
  requestTimeout: str('REQUEST_TIMEOUT', '30s'),
};

// How long a scenario's end waits for iterations in flight. An iteration cut short loses the answer
// of its request in flight, while the server may still accept it: a row that no 202 or 503 accounts
// for. Default: time for a request plus its retries to end (each ≤ REQUEST_TIMEOUT, 5 s back-off).
export function gracefulStop(attempts) {
  return str('GRACEFUL_STOP', `${Math.ceil(attempts * (seconds(common.requestTimeout) + 5))}s`);
}

export function userId(index) {
  return `${common.userPrefix}${common.userOffset + index}`;
}
