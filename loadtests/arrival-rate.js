// Open-model throughput search: consecutive constant-arrival-rate phases (warm-up, target, peak,
// stress), STAGES="50:30s,100:30s,200:30s,500:30s" (iterations per second : duration). Every
// iteration is a new user, so with a coupon bigger than the request count every request travels
// the whole path (Redis, Kafka, MySQL). The summary reports each phase: achieved rate, dropped
// iterations (k6 had no free VU: the system fell behind), p95/p99.
import http from 'k6/http';
import exec from 'k6/execution';
import { common, gracefulStop, int, seconds, str, userId } from './lib/config.js';
import { userToken } from './lib/jwt.js';
import { EXPECTED_STATUSES, awaitIssued, couponWindow, issue, metrics, useWindow } from './lib/api.js';
import { TREND_STATS, baseThresholds, submetric, summaryHandler, trackSubmetric } from './lib/summary.js';

const STAGES = str('STAGES', '50:30s,100:30s,200:30s,500:30s,1000:30s,2000:30s');
const MAX_VUS = int('MAX_VUS', 3000);
const SHED_RETRIES = int('SHED_RETRIES', 0);
const POLL_INTERVAL_S = seconds(str('POLL_INTERVAL', '0'));
const POLL_DEADLINE_S = seconds(str('POLL_DEADLINE', '60s'));
const POLL = POLL_INTERVAL_S > 0;

// Each phase owns a disjoint block of user ids: its base is the most iterations earlier phases
// can run. k6 can start one iteration more than rate × duration (one at each end of the window, e.g.
// 51 in a 5/s phase of 10 s), so each block has a spare second of iterations.
const phases = [];
{
  let start = 0;
  let base = 0;
  STAGES.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .forEach((stage, i) => {
      const [rate, duration] = stage.split(':');
      const r = parseInt(rate, 10);
      const d = seconds(duration);
      if (!(r > 0) || !(d > 0)) throw new Error(`bad stage "${stage}" in STAGES (want rate:duration)`);
      phases.push({ name: `p${i + 1}_${r}rps`, rate: r, duration: d, start, base });
      start += d;
      base += Math.ceil(r * (d + 1));
    });
}
const phaseByName = Object.fromEntries(phases.map((p) => [p.name, p]));

http.setResponseCallback(http.expectedStatuses(...EXPECTED_STATUSES));

const thresholds = baseThresholds({ poll: POLL });
for (const p of phases) {
  const tag = `scenario:${p.name}`;
  ['issuance_duration', 'issuance_requests', 'issuance_accepted', 'dropped_iterations'].forEach((m) =>
    trackSubmetric(thresholds, m, tag),
  );
}

export const options = {
  scenarios: Object.fromEntries(
    phases.map((p) => [
      p.name,
      {
        executor: 'constant-arrival-rate',
        rate: p.rate,
        timeUnit: '1s',
        duration: `${p.duration}s`,
        startTime: `${p.start}s`,
        preAllocatedVUs: Math.min(MAX_VUS, Math.max(10, Math.ceil(p.rate / 2))),
        maxVUs: MAX_VUS,
        gracefulStop: gracefulStop(SHED_RETRIES + 1),
      },
    ]),
  ),
  thresholds,
  summaryTrendStats: TREND_STATS,
};

export function setup() {
  return { window: couponWindow() };
}

export default function (data) {
  useWindow(data.window);
  const phase = phaseByName[exec.scenario.name];
  const user = userId(phase.base + exec.scenario.iterationInTest);
  const token = userToken(user, common.jwtSecret, common.tokenTtl);
  const first = issue(user, token, { retries: SHED_RETRIES, timeline: false });
  if (first.outcome === 'shed' || first.outcome === 'unexpected') return;
  metrics.requesters.add(1);
  if (first.outcome === 'accepted' && POLL) awaitIssued(user, token, Date.now(), POLL_INTERVAL_S, POLL_DEADLINE_S);
}

export const handleSummary = summaryHandler('arrival-rate', (data) => ({
  issue_window_s: phases.reduce((sum, p) => sum + p.duration, 0),
  phases: phases.map((p) => {
    const tag = `scenario:${p.name}`;
    const d = submetric(data, 'issuance_duration', tag);
    const requests = submetric(data, 'issuance_requests', tag).count || 0;
    return {
      name: p.name,
      target_rps: p.rate,
      duration_s: p.duration,
      requests,
      achieved_rps: Math.round((requests / p.duration) * 10) / 10,
      accepted: submetric(data, 'issuance_accepted', tag).count || 0,
      dropped: submetric(data, 'dropped_iterations', tag).count || 0,
      p50_ms: Math.round((d['p(50)'] || 0) * 10) / 10,
      p95_ms: Math.round((d['p(95)'] || 0) * 10) / 10,
      p99_ms: Math.round((d['p(99)'] || 0) * 10) / 10,
    };
  }),
}));
