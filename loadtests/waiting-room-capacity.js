// How many waiting users the room holds while polls stay fast. In steps: join users up to the
// step's count (JOIN_RATE per second), then hold for HOLD while every waiting user polls once per
// POLL_EVERY seconds (the room's pollAfterMs for users far back), round-robin, and measure the
// poll latency of that hold (sub-metric wr_poll_duration{step:N}). The zone is put in mode "on"
// with a budget of 1 a minute, so the queue only grows. Run the room with a purge-after above
// POLL_EVERY (local: WAITING_ROOM_ARGS=--coupon.waiting-room.defaults.purge-after=10m).
// Summary: wr_capacity_steps (count, joins and polls made, poll p95/p99, joins' p95 per step) and
// wr_max_waiting_users (the largest step whose poll p95 <= POLL_P95_MS).
// Each phase's bounds go to the console as `WR_CAPACITY_MARK <scenario> start|end` lines: a join
// phase's first call and the end of its last, a hold's first poll. make bench reads the room's and
// Redis's CPU and Redis's memory at them (local/bench/room_capacity.py).
import http from 'k6/http';
import exec from 'k6/execution';
import { common, int, num, seconds, str, userId } from './lib/config.js';
import { sign, userToken } from './lib/jwt.js';
import { WR_URL, join, poll } from './lib/waiting-room.js';
import { TREND_STATS, submetric, summaryHandler, trackSubmetric } from './lib/summary.js';

const STEPS = str('STEPS', '5000,10000,20000,30000')
  .split(',')
  .map((s) => parseInt(s, 10));
const JOIN_RATE = int('JOIN_RATE', 400);
const HOLD_S = seconds(str('HOLD', '40s'));
const POLL_EVERY_S = num('POLL_EVERY', 30);
const POLL_P95_MS = num('POLL_P95_MS', 50);

const scenarios = {};
const thresholds = { wr_unexpected: ['count==0'] };
let start = 0;
let from = 0;
for (const count of STEPS) {
  const joins = count - from;
  const joinS = Math.ceil(joins / JOIN_RATE);
  scenarios[`join-${count}`] = {
    executor: 'shared-iterations',
    vus: Math.min(50, joins),
    iterations: joins,
    startTime: `${start}s`,
    maxDuration: `${joinS * 2 + 10}s`,
    env: { FROM: `${from}`, JOINS: `${joins}` },
    tags: { step: `${count}`, phase: 'join' },
    exec: 'joinOne',
  };
  start += joinS * 2 + 10; // twice the joins' time: the hold starts only after them
  const rate = Math.max(1, Math.round(count / POLL_EVERY_S));
  scenarios[`hold-${count}`] = {
    executor: 'constant-arrival-rate',
    rate,
    timeUnit: '1s',
    duration: `${HOLD_S}s`,
    startTime: `${start}s`,
    preAllocatedVUs: Math.min(200, Math.ceil(rate / 10)),
    maxVUs: 400,
    env: { COUNT: `${count}` },
    tags: { step: `${count}`, phase: 'hold' },
    exec: 'pollOne',
  };
  trackSubmetric(thresholds, 'wr_poll_duration', `step:${count}`);
  trackSubmetric(thresholds, 'wr_join_duration', `step:${count}`);
  start += HOLD_S;
  from = count;
}

export const options = { scenarios, thresholds, summaryTrendStats: TREND_STATS, setupTimeout: '120s' };

export function setup() {
  const admin = sign({ sub: 'k6-admin', roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 600 }, common.jwtSecret);
  const res = http.put(
    `${WR_URL}/api/v1/admin/waiting-room/zones/coupon-${common.couponId}`,
    JSON.stringify({ mode: 'on', budgetPerMinute: 1, paused: false }),
    { headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' } },
  );
  if (res.status !== 200) throw new Error(`setting the zone failed: ${res.status} ${res.body}`);
}

// one line per bound, from the one iteration that starts or ends the phase
function mark(at) {
  console.log(`WR_CAPACITY_MARK ${exec.scenario.name} ${at}`);
}

export async function joinOne() {
  const i = exec.scenario.iterationInTest;
  if (i === 0) mark('start');
  const user = userId(parseInt(__ENV.FROM, 10) + i);
  await join(user, userToken(user, common.jwtSecret, common.tokenTtl));
  // the last join handed out has its answer (the VUs' other joins, started before it, have theirs
  // within milliseconds)
  if (i === parseInt(__ENV.JOINS, 10) - 1) mark('end');
}

export async function pollOne() {
  const i = exec.scenario.iterationInTest;
  if (i === 0) mark('start');
  const user = userId(i % parseInt(__ENV.COUNT, 10));
  // the head of the queue is admitted (1 a minute) and its admission ends after the entry TTL
  await poll(userToken(user, common.jwtSecret, common.tokenTtl), { allowGone: true });
}

export const handleSummary = summaryHandler('waiting-room-capacity', (data) => {
  const steps = STEPS.map((count) => {
    const p = submetric(data, 'wr_poll_duration', `step:${count}`);
    const j = submetric(data, 'wr_join_duration', `step:${count}`);
    return {
      waiting: count,
      joins: j.count || 0,
      polls: p.count || 0,
      poll_p95_ms: p['p(95)'] || 0,
      poll_p99_ms: p['p(99)'] || 0,
      join_p95_ms: j['p(95)'] || 0,
    };
  });
  const held = steps.filter((s) => s.polls > 0 && s.poll_p95_ms <= POLL_P95_MS);
  return {
    wr_capacity_steps: steps,
    wr_max_waiting_users: held.length ? Math.max(...held.map((s) => s.waiting)) : 0,
    wr_poll_p95_target_ms: POLL_P95_MS,
  };
});
