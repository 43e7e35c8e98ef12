// A spike met by the waiting room: USERS distinct users arrive within RAMP, far faster than the
// zone's budget. Each joins the coupon's queue, polls as told (pollAfterMs), and when admitted
// issues once with its entry token; users still waiting when the stock runs out learn it at their
// next poll. Works whether or not the API enforces the gate (the token is always sent).
// Each journey is printed as `WR_JOURNEY {json}` for the verifier (run k6 with --console-output).
// WARMUP (e.g. 30s) with WARMUP_COUPON_ID first sends WARMUP_RATE fresh users a second through a
// whole visit (join, queued to the next step, poll, issue with the entry token) on that other
// coupon, so that the spike meets compiled code in the room, the API and the brokers, as an event
// meets a platform that has been running, not one started a minute ago; the warm-up feeds none of
// the wr_* or issuance metrics and prints no journeys. WR_MODE (auto, on, off) and WR_BUDGET set
// the spike's zone through the admin API first. USERS=0 runs the warm-up alone: make demo and make
// bench run it, wait for a quiet machine, then run the spike (local/room-spike.sh).
import http from 'k6/http';
import exec from 'k6/execution';
import { common, int, seconds, str, userId } from './lib/config.js';
import { sign, userToken } from './lib/jwt.js';
import { EXPECTED_STATUSES, couponWindow, useWindow } from './lib/api.js';
import { WR_URL, pause, visit } from './lib/waiting-room.js';
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

// The ramp in one-second slices: a user of slice i arrives at a random moment of second i. Each VU
// carries USERS_PER_VU users at once (asynchronous requests and timers): a VU per user cost k6 a
// JavaScript runtime, a connection and a goroutine stack per user, more than a core of the two
// in the spike, taken from the room it measures (local/decisions/0033). An arrival-rate executor
// would drop arrivals (users) whenever k6 falls behind on a busy host.
const SLICES = Math.max(1, Math.ceil(RAMP_S));
const SLICE_S = RAMP_S / SLICES;
const USERS_PER_VU = Math.max(1, int('USERS_PER_VU', 50));
const vusFor = (users) => Math.max(1, Math.ceil(users / USERS_PER_VU));
const VUS = vusFor(USERS);
const WARMUP_USERS = Math.round(WARMUP_S * WARMUP_RATE);
const WARMUP_VUS = vusFor(WARMUP_USERS);
const scenarios = {};
if (USERS > 0) {
  scenarios['waiting-room'] = {
    executor: 'per-vu-iterations',
    vus: VUS,
    iterations: 1,
    maxDuration: str('MAX_DURATION', '15m'),
    gracefulStop: str('GRACEFUL_STOP', '60s'),
    exec: 'visitSome',
    // after the warm-up's last visits have ended
    startTime: `${WARMUP_S > 0 ? WARMUP_S + 5 : 0}s`,
  };
}
if (WARMUP_USERS > 0) {
  scenarios['warm-up'] = {
    executor: 'per-vu-iterations',
    vus: WARMUP_VUS,
    iterations: 1,
    exec: 'warmUp',
    // overlapping the spike's window, so that k6 gives the spike VUs of its own: a keep-alive
    // connection the server closed while idle would end a reused VU's first POST in an EOF
    maxDuration: `${WARMUP_S + 10}s`,
    gracefulStop: '5s',
  };
}

http.setResponseCallback(http.expectedStatuses(...EXPECTED_STATUSES));

export const options = {
  scenarios,
  // a VU's users keep their keep-alive connections between their calls (k6 keeps BATCH_PER_HOST idle)
  batch: USERS_PER_VU,
  batchPerHost: USERS_PER_VU,
  thresholds: {
    ...baseThresholds(),
    wr_unexpected: ['count==0'],
    wr_entry_refused: ['count==0'],
  },
  summaryTrendStats: TREND_STATS,
  setupTimeout: '120s',
};

function putZone(coupon, zone) {
  const admin = sign({ sub: 'k6-admin', roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 600 }, common.jwtSecret);
  const res = http.put(`${WR_URL}/api/v1/admin/waiting-room/zones/coupon-${coupon}`, JSON.stringify(zone), {
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
  });
  if (res.status !== 200) throw new Error(`setting zone coupon-${coupon} failed: ${res.status} ${res.body}`);
}

export function setup() {
  if (BUDGET > 0 || MODE) {
    putZone(common.couponId, { budgetPerMinute: BUDGET > 0 ? BUDGET : null, mode: MODE || null });
  }
  // The warm-up's zone queues every user until its next step (the same calls as the spike's, the
  // entry token checked by the API) and lets in twice its arrivals, so that nobody waits longer.
  if (WARMUP_USERS > 0) putZone(WARMUP_COUPON, { mode: 'on', budgetPerMinute: WARMUP_RATE * 120 });
  return { window: couponWindow() };
}

// This VU's users of [0, count): every VUS-th from its iteration, user u (named name(u)) starting
// a whole visit at arrivalMs(u). The VU waits for its next arrival with one timer at a time: a
// timer and a promise per user set up at once cost k6 most of a core in the ramp's first half
// second, and the joins of that half second queued behind them.
async function carry(count, vus, arrivalMs, name, options) {
  const arrivals = [];
  for (let u = exec.scenario.iterationInTest; u < count; u += vus) arrivals.push({ u, at: arrivalMs(u) });
  arrivals.sort((a, b) => a.at - b.at);
  const start = Date.now();
  const visits = [];
  for (const { u, at } of arrivals) {
    const wait = at - (Date.now() - start);
    if (wait > 0) await pause(wait);
    const user = name(u);
    visits.push(visit(user, userToken(user, common.jwtSecret, common.tokenTtl), options));
  }
  await Promise.all(visits);
}

export async function visitSome(data) {
  useWindow(data && data.window);
  await carry(USERS, VUS, (u) => (Math.floor((u * SLICES) / USERS) + Math.random()) * SLICE_S * 1000, userId, {
    maxWaitMs: MAX_WAIT_S * 1000,
    shedRetries: SHED_RETRIES,
  });
}

// The warm-up: WARMUP_RATE fresh users a second, each a whole visit on the other coupon, whose zone
// queues them to its next step as the spike's does, outside every metric the run is judged by.
export async function warmUp() {
  await carry(
    WARMUP_USERS,
    WARMUP_VUS,
    (u) => ((u + Math.random()) * 1000) / WARMUP_RATE,
    (u) => `warm-up-${u}`,
    {
      maxWaitMs: 30000,
      shedRetries: SHED_RETRIES,
      coupon: WARMUP_COUPON,
      quiet: true,
    },
  );
}

function stat(data, name, key) {
  const m = data.metrics[name];
  return m && typeof m.values[key] === 'number' ? Math.round(m.values[key] * 1000) / 1000 : 0;
}

export const handleSummary = summaryHandler('waiting-room', (data) => ({
  users: USERS,
  wr_url: WR_URL,
  wr_joined: stat(data, 'wr_join_duration', 'count'),
  wr_queued: stat(data, 'wr_queued', 'count'),
  wr_admitted: stat(data, 'wr_admitted', 'count'),
  wr_sold_out: stat(data, 'wr_sold_out', 'count'),
  wr_polls: stat(data, 'wr_poll_duration', 'count'),
  wr_entry_refused: stat(data, 'wr_entry_refused', 'count'),
  wr_join_p95_ms: stat(data, 'wr_join_duration', 'p(95)'),
  wr_poll_p95_ms: stat(data, 'wr_poll_duration', 'p(95)'),
  wr_answer_p95_ms: stat(data, 'wr_answer_duration', 'p(95)'),
  wr_answer_max_ms: stat(data, 'wr_answer_duration', 'max'),
  wr_unexpected: stat(data, 'wr_unexpected', 'count'),
}));
