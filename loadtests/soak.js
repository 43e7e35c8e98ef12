// A steady RATE of mixed traffic for a long DURATION: ISSUE_SHARE new users asking for the coupon,
// STATUS_SHARE status checks of earlier users, the rest reads of the public coupon view. Looks for
// leaks, slow drift and anything that goes wrong only with time; 403 NOT_OPEN_YET/CLOSED/PAUSED is
// an expected answer here (the event may close while the soak runs).
import http from 'k6/http';
import exec from 'k6/execution';
import { common, gracefulStop, int, num, str, userId } from './lib/config.js';
import { userToken } from './lib/jwt.js';
import { EXPECTED_STATUSES, couponInfo, issue, metrics, status } from './lib/api.js';
import { TREND_STATS, baseThresholds, summaryHandler } from './lib/summary.js';

const RATE = int('RATE', 50);
const DURATION = str('DURATION', '10m');
const ISSUE_SHARE = num('ISSUE_SHARE', 0.2);
const STATUS_SHARE = num('STATUS_SHARE', 0.3);

http.setResponseCallback(http.expectedStatuses(...EXPECTED_STATUSES, 403));

export const options = {
  scenarios: {
    soak: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: Math.max(5, Math.ceil(RATE / 5)),
      maxVUs: int('MAX_VUS', Math.max(50, RATE * 4)),
      gracefulStop: gracefulStop(4), // issue() tries up to 4 times
    },
  },
  thresholds: {
    ...baseThresholds(),
    ...(common.latencyJudged
      ? {
          'http_req_duration{name:status}': [`p(95)<${common.p95}`, `p(99)<${common.p99}`],
          'http_req_duration{name:info}': [`p(95)<${common.p95}`, `p(99)<${common.p99}`],
        }
      : {}),
  },
  summaryTrendStats: TREND_STATS,
};

export default function () {
  const index = exec.scenario.iterationInTest;
  const pick = Math.random();
  if (pick < ISSUE_SHARE) {
    const user = userId(index);
    const first = issue(user, userToken(user, common.jwtSecret, common.tokenTtl), { allowNotOpen: true });
    if (first.outcome !== 'shed' && first.outcome !== 'unexpected') metrics.requesters.add(1);
  } else if (pick < ISSUE_SHARE + STATUS_SHARE) {
    const user = userId(Math.floor(Math.random() * (index + 1)));
    status(user, userToken(user, common.jwtSecret, common.tokenTtl));
  } else {
    couponInfo();
  }
}

export const handleSummary = summaryHandler('soak', () => ({ rate: RATE }));
