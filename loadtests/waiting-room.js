// A spike met by the waiting room: USERS distinct users arrive within RAMP, far faster than the
// zone's budget. Each joins the coupon's queue, polls as told (pollAfterMs), and when admitted
// issues once with its entry token; users still waiting when the stock runs out learn it at their
// next poll. Works whether or not the API enforces the gate (the token is always sent).
// Each journey is printed as `WR_JOURNEY {json}` for the verifier (run k6 with --console-output).
// WARMUP (e.g. 30s) with WARMUP_COUPON_ID first sends WARMUP_RATE fresh users a second through a
// whole visit (join, poll as told, issue) on that other coupon, whose zone setup() switches on with
// room for all of them at each step, so that the spike meets compiled code in the room (the queued
// answers, kept-alive connections), the API and the brokers, as an event meets a platform that has
// been running, not one started a minute ago; the warm-up feeds none of the wr_* or issuance
// metrics and prints no journeys. WR_MODE (auto, on, off) and WR_BUDGET set the
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

// Arrivals at an even rate through the ramp: k6 starts each visit when it is due. Starting all of
// them at once, each sleeping to a random moment of the ramp, cost k6 a core for the ramp's first
// second, and the joins of that second waited for it.
const spike = RAMP_S > 0
  ? { executor: 'constant-arrival-rate', rate: USERS, timeUnit: `${RAMP_S}s`, duration: `${RAMP_S}s`,
    preAllocatedVUs: USERS, maxVUs: USERS, gracefulStop: str('MAX_DURATION', '15m') }
  : { executor: 'per-vu-iterations', vus: USERS, iterations: 1, maxDuration: str('MAX_DURATION', '15m'),
    gracefulStop: str('GRACEFUL_STOP', '60s') };
const scenarios = {
  'waiting-room': {
    ...spike,
    exec: 'visitOne',
    // after the warm-up's last visits have ended
    startTime: `${WARMUP_S > 0 ? WARMUP_S + 5 : 0}s`,
  },
};
if (WARMUP_S > 0) {
  scenarios['warm-up'] = {
    // a visit waits for the next admission step (the sub-window, 2-6 s)
    executor: 'constant-arrival-rate', rate: WARMUP_RATE, timeUnit: '1s', duration: `${WARMUP_S}s`,
    preAllocatedVUs: Math.max(200, WARMUP_RATE * 4), maxVUs: Math.max(400, WARMUP_RATE * 8), exec: 'warmUp',
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
  // Every warm-up visit is queued, let in at the next step and goes on to issue, so that the room
  // answers as in the spike and the API and the brokers warm up with it.
  if (WARMUP_S > 0) putZone(WARMUP_COUPON, { mode: 'on', budgetPerMinute: Math.min(1000000, WARMUP_RATE * 120) });
}

export function visitOne() {
  const user = userId(exec.scenario.iterationInTest);
  visit(user, userToken(user, common.jwtSecret, common.tokenTtl), {
    maxWaitMs: MAX_WAIT_S * 1000,
    shedRetries: SHED_RETRIES,
  });
}

// One warm-up visit on the other coupon: plain requests, outside every metric the run is judged by.
export function warmUp() {
  const user = `warm-up-${exec.scenario.iterationInTest}`;
  const token = userToken(user, common.jwtSecret, common.tokenTtl);
  // The room's connection is kept alive between the visit's requests, as in the spike; a spike's
  // user who gets this VU reuses it well inside the room's keep-alive timeout (60 s).
  const params = { headers: { Authorization: `Bearer ${token}` }, tags: { name: 'warm-up' }, timeout: '10s' };
  const entries = `${WR_URL}/api/v1/waiting-room/coupons/${WARMUP_COUPON}/entries`;
  let e = warmUpAnswer(http.post(entries, null, params));
  for (let polls = 0; e && (e.state === 'QUEUED' || e.state === 'PAUSED') && polls < 10; polls++) {
    sleep(Math.max(e.pollAfterMs, 50) / 1000);
    e = warmUpAnswer(http.get(`${entries}/me`, params));
  }
  if (e && e.state === 'ADMITTED') {
    // Connection: close: an admitted spike user issues minutes later, past the API's keep-alive
    // timeout, and a POST on a connection the server has just closed fails (EOF)
    http.post(`${common.baseUrl}/api/v1/coupons/${WARMUP_COUPON}/issuances`, null, {
      headers: { Authorization: `Bearer ${token}`, 'Coupon-Entry-Token': e.entryToken, Connection: 'close' },
      tags: { name: 'warm-up' },
      timeout: '10s',
    });
  }
}

function warmUpAnswer(res) {
  try { return res.status === 200 ? res.json() : undefined; } catch (_) { return undefined; }
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
