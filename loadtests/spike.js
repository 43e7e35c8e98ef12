// The flash-sale moment: VUS virtual users arrive within RAMP, each a distinct user with its own
// HS256 token, one issuance attempt each, then a status poll until ISSUED. A deterministic share
// of users (RETRY_FRACTION) clicks again and must get 409 (or 410), never a second coupon.
// With USERS > VUS each VU serves ceil(USERS/VUS) users one after another; a user id belongs to
// exactly one iteration, hence to one VU (iterationInTest is unique across the whole test, also
// when a TestRun splits it over several k6 pods).
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { Counter } from 'k6/metrics';
import { common, gracefulStop, int, num, seconds, str, userId } from './lib/config.js';
import { userToken } from './lib/jwt.js';
import { EXPECTED_STATUSES, awaitIssued, couponWindow, issue, metrics, useWindow } from './lib/api.js';
import { TREND_STATS, baseThresholds, summaryHandler } from './lib/summary.js';

const VUS = int('VUS', 10000);
const USERS = int('USERS', VUS);
const RAMP_S = seconds(str('RAMP', '5s'));
const RETRY_FRACTION = num('RETRY_FRACTION', 0.05);
const POLL_INTERVAL_S = seconds(str('POLL_INTERVAL', '1s')); // 0: no status polling
const POLL_DEADLINE_S = seconds(str('POLL_DEADLINE', '60s'));
const SHED_RETRIES = int('SHED_RETRIES', 3);
const POLL = POLL_INTERVAL_S > 0;

// A second 202 for the same user would be a double issuance: must stay 0.
const secondAccept = new Counter('issuance_second_accept');

http.setResponseCallback(http.expectedStatuses(...EXPECTED_STATUSES));

export const options = {
  scenarios: {
    spike: {
      executor: 'per-vu-iterations',
      vus: VUS,
      iterations: Math.ceil(USERS / VUS),
      maxDuration: str('MAX_DURATION', '10m'),
      // a first attempt and a second click, each with its retries
      gracefulStop: gracefulStop(2 * (SHED_RETRIES + 1)),
    },
  },
  thresholds: { ...baseThresholds({ poll: POLL }), issuance_second_accept: ['count==0'] },
  summaryTrendStats: TREND_STATS,
  setupTimeout: '120s',
};

// Knuth's multiplicative hash spreads the retrying users evenly over the id range.
function retries(index) {
  return ((index * 2654435761) % 4294967296) / 4294967296 < RETRY_FRACTION;
}

export function setup() {
  return { window: couponWindow() };
}

export default function (data) {
  useWindow(data.window);
  const index = exec.scenario.iterationInTest;
  if (index >= USERS) return;
  // The first user of every VU arrives at a random moment of the ramp: VUS arrivals within RAMP.
  if (exec.vu.iterationInScenario === 0 && RAMP_S > 0) sleep(Math.random() * RAMP_S);

  const user = userId(index);
  const token = userToken(user, common.jwtSecret, common.tokenTtl);
  const first = issue(user, token, { retries: SHED_RETRIES });
  if (first.outcome === 'shed' || first.outcome === 'unexpected') return;
  metrics.requesters.add(1);
  const acceptedAt = Date.now();

  if (retries(index)) {
    const again = issue(user, token, { retries: SHED_RETRIES });
    secondAccept.add(again.outcome === 'accepted' ? 1 : 0);
  }
  if (first.outcome === 'accepted' && POLL) awaitIssued(user, token, acceptedAt, POLL_INTERVAL_S, POLL_DEADLINE_S);
}

export const handleSummary = summaryHandler('spike', (data) => ({
  users: USERS,
  second_accept: (data.metrics.issuance_second_accept || { values: { count: 0 } }).values.count,
}));
