// A spike met by the waiting room: USERS distinct users arrive within RAMP, far faster than the
// zone's budget. Each joins the coupon's queue, polls as told (pollAfterMs), and when admitted
// issues once with its entry token; users still waiting when the stock runs out learn it at their
// next poll. Works whether or not the API enforces the gate (the token is always sent).
// Each journey is printed as `WR_JOURNEY {json}` for the verifier (run k6 with --console-output).
// WARMUP (e.g. 30s) with WARMUP_COUPON_ID first sends WARMUP_RATE fresh users a second through a
// whole visit (join, poll, issue) on that other coupon, whose zone setup() switches off (no queue),
// so that the spike meets compiled code in the room, the API and the brokers, as an event meets
// a platform that has been running, not one started a minute ago; the warm-up feeds none of the
// wr_* or issuance metrics and prints no journeys. WR_MODE (auto, on, off) and WR_BUDGET set the
// spike's zone through the admin API first.
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { common, int, seconds, str, userId } from './lib/config.js';
import { sign, userToken } from './lib/jwt.js';
import { EXPECTED_STATUSES } from './lib/api.js';
import { WR_URL, visit } from './lib/waiting-room.js';
import { TREND_STATS, baseThresholds, summaryHandler } from './lib/summary.js';

const USERS = int('USERS', 2000);
const RAMP_S = seconds(str('RAMP', '10s'));
const MAX_WAIT_S = seconds(str('MAX_WAIT', '5m'));
const SHED_RETRIES = int('SHED_RETRIES', 3);
// When set, setup() puts the zone's budget (users per minute) through the admin API.
const BUDGET = int('WR_BUDGET', 0);
// When set (auto, on, off), setup() puts the zone's mode through the admin API.
const MODE = str('WR_MODE', '');
const WARMUP_COUPON = str('WARMUP_COUPON_ID', '');
const WARMUP_S = WARMUP_COUPON ? seconds(str('WARMUP', '0s')) : 0;
const WARMUP_RATE = int('WARMUP_RATE', 200);

// The ramp in one-second slices, a scenario each: a slice's users start together and each sleeps
// to a random moment of its second. Starting all of the ramp's users at once cost k6 a core for
// the first second, and the joins of that second waited for it; an arrival-rate executor spreads
// the starts too, but drops arrivals (users) whenever k6 falls behind on a busy host.
const SLICES = Math.max(1, Math.ceil(RAMP_S));
const SLICE_S = RAMP_S / SLICES;
const sliceStart = (i) => Math.floor((USERS * i) / SLICES);
const scenarios = {};
for (let i = 0; i < SLICES; i++) {
  const vus = sliceStart(i + 1) - sliceStart(i);
  if (vus === 0) continue;
  scenarios[`waiting-room-${i}`] = {
    executor: 'per-vu-iterations',
    vus,
    iterations: 1,
    maxDuration: str('MAX_DURATION', '15m'),
    gracefulStop: str('GRACEFUL_STOP', '60s'),
    exec: 'visitOne',
    env: { SLICE: String(i) },
    // after the warm-up's last visits have ended
    startTime: `${(WARMUP_S > 0 ? WARMUP_S + 5 : 0) + i * SLICE_S}s`,
  };
}
if (WARMUP_S > 0) {
  scenarios['warm-up'] = {
    executor: 'constant-arrival-rate', rate: WARMUP_RATE, timeUnit: '1s', duration: `${WARMUP_S}s`,
    preAllocatedVUs: Math.min(200, WARMUP_RATE), maxVUs: Math.max(200, WARMUP_RATE), exec: 'warmUp',
    gracefulStop: '5s',
  };
}

http.setResponseCallback(http.expectedStatuses(...EXPECTED_STATUSES));

export const options = {
  scenarios,
  thresholds: {
    ...baseThresholds(),
    wr_unexpected: ['rate==0'],
    wr_entry_refused: ['count==0'],
  },
  summaryTrendStats: TREND_STATS,
  setupTimeout: '120s',
};

function putZone(coupon, zone) {
  const admin = sign({ sub: 'k6-admin', roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 600 }, common.jwtSecret);
  const res = http.put(`${WR_URL}/api/v1/admin/waiting-room/zones/coupon-${coupon}`, JSON.stringify(zone),
    { headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' } });
  if (res.status !== 200) throw new Error(`setting zone coupon-${coupon} failed: ${res.status} ${res.body}`);
}

export function setup() {
  if (BUDGET > 0 || MODE) {
    putZone(common.couponId, { budgetPerMinute: BUDGET > 0 ? BUDGET : null, mode: MODE || null });
  }
  // Every warm-up visit goes on to issue, so that the API and the brokers warm up with the room.
  if (WARMUP_S > 0) putZone(WARMUP_COUPON, { mode: 'off' });
}

export function visitOne() {
  if (SLICE_S > 0) sleep(Math.random() * SLICE_S);
  const user = userId(sliceStart(parseInt(__ENV.SLICE, 10)) + exec.scenario.iterationInTest);
  visit(user, userToken(user, common.jwtSecret, common.tokenTtl), {
    maxWaitMs: MAX_WAIT_S * 1000,
    shedRetries: SHED_RETRIES,
  });
}

// One warm-up visit on the other coupon: plain requests, outside every metric the run is judged by.
export function warmUp() {
  const user = `warm-up-${exec.scenario.iterationInTest}`;
  const token = userToken(user, common.jwtSecret, common.tokenTtl);
  // Connection: close: k6 hands the warm-up's VUs to the spike afterwards, and a keep-alive
  // connection left idle past the server's timeout is closed as the spike's POST reuses it (EOF)
  const params = { headers: { Authorization: `Bearer ${token}`, Connection: 'close' }, tags: { name: 'warm-up' },
    timeout: '10s' };
  const entries = `${WR_URL}/api/v1/waiting-room/coupons/${WARMUP_COUPON}/entries`;
  http.post(entries, null, params);
  const res = http.get(`${entries}/me`, params);
  let entryToken;
  try { entryToken = res.status === 200 ? res.json('entryToken') : undefined; } catch (_) { entryToken = undefined; }
  if (entryToken) {
    http.post(`${common.baseUrl}/api/v1/coupons/${WARMUP_COUPON}/issuances`, null, {
      headers: { Authorization: `Bearer ${token}`, 'Coupon-Entry-Token': entryToken, Connection: 'close' },
      tags: { name: 'warm-up' },
      timeout: '10s',
    });
  }
}

function stat(data, name, key) {
  const m = data.metrics[name];
  return m && typeof m.values[key] === 'number' ? Math.round(m.values[key] * 1000) / 1000 : 0;
}

export const handleSummary = summaryHandler('waiting-room', (data) => ({
  users: USERS,
  wr_url: WR_URL,
  wr_joined: stat(data, 'wr_joined', 'count'),
  wr_queued: stat(data, 'wr_queued', 'count'),
  wr_admitted: stat(data, 'wr_admitted', 'count'),
  wr_sold_out: stat(data, 'wr_sold_out', 'count'),
  wr_polls: stat(data, 'wr_polls', 'count'),
  wr_entry_refused: stat(data, 'wr_entry_refused', 'count'),
  wr_join_p95_ms: stat(data, 'wr_join_duration', 'p(95)'),
  wr_poll_p95_ms: stat(data, 'wr_poll_duration', 'p(95)'),
  wr_answer_p95_ms: stat(data, 'wr_answer_duration', 'p(95)'),
  wr_answer_max_ms: stat(data, 'wr_answer_duration', 'max'),
  wr_unexpected: stat(data, 'wr_unexpected', 'passes'),
}));
