// Thresholds every scenario shares, and handleSummary: a JSON file (SUMMARY_PATH) that
// local/demo.sh, local/bench.sh and the tests read, plus a short text summary on stdout.
import { common, num } from './config.js';

// count: how many calls a trend timed (a counter of them would cost k6 a sample more per call)
export const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(95)', 'p(99)', 'count'];

// The latency targets of the issuance POST, from P95_MS / P99_MS.
export const LATENCY_TARGETS = () => [
  ['p(95)', common.p95],
  ['p(99)', common.p99],
];

// Failure rate 0 (both k6's own and ours), nobody left shed; with LATENCY_JUDGED the latency
// targets too (otherwise the summary reports them, see latencyTargets).
export function baseThresholds({ poll = false } = {}) {
  const t = {
    http_req_failed: [`rate<=${num('MAX_FAILED_RATE', 0)}`],
    unexpected: [`rate<=${num('MAX_UNEXPECTED_RATE', 0)}`],
    issuance_gave_up: ['count==0'],
  };
  if (common.latencyJudged) t.issuance_duration = LATENCY_TARGETS().map(([stat, ms]) => `${stat}<${ms}`);
  if (poll) t.issuance_unconfirmed = ['count==0'];
  return t;
}

// Latency targets that are not k6 thresholds, as "metric: expression" -> met, in the same form as
// k6's own results, so the verifier reads them alike (judged unless --latency-reported).
function latencyTargets(data) {
  if (common.latencyJudged) return {};
  const d = values(data, 'issuance_duration');
  const out = {};
  for (const [stat, ms] of LATENCY_TARGETS()) {
    if (typeof d[stat] === 'number') out[`issuance_duration: ${stat}<${ms}`] = d[stat] < ms;
  }
  return out;
}

function values(data, name) {
  const m = data.metrics[name];
  return m ? m.values : {};
}

function n(v) {
  return typeof v === 'number' && Number.isFinite(v) ? Math.round(v * 1000) / 1000 : 0;
}

function thresholdResults(data) {
  const out = {};
  let ok = true;
  for (const [name, m] of Object.entries(data.metrics)) {
    if (!m.thresholds) continue;
    for (const [expr, res] of Object.entries(m.thresholds)) {
      out[`${name}: ${expr}`] = res.ok;
      ok = ok && res.ok;
    }
  }
  return { ok, out };
}

export function collect(data, scenario, extra = {}) {
  const count = (name) => n(values(data, name).count);
  const dur = values(data, 'issuance_duration');
  const tti = values(data, 'time_to_issued');
  const sent = values(data, 'issuance_sent_at_s');
  const answered = values(data, 'issuance_answered_at_s');
  const durationS = data.state.testRunDurationMs / 1000;
  // From the first user's POST to the last user's: a scenario without a timeline passes its own.
  const issueWindowS = extra.issue_window_s || Math.max((sent.max || 0) - (sent.min || 0), 0.001);
  const issues = count('issuance_requests');
  const unexpected = values(data, 'unexpected');
  const th = thresholdResults(data);
  return {
    scenario,
    coupon_id: common.couponId,
    base_url: common.baseUrl,
    user_prefix: common.userPrefix,
    user_offset: common.userOffset,
    duration_s: n(durationS),
    issue_window_s: n(issueWindowS),
    vus_peak: n(values(data, 'vus_max').max),
    http_requests: count('http_reqs'),
    requests: issues,
    accepted: count('issuance_accepted'),
    duplicate: count('issuance_duplicate'),
    sold_out: count('issuance_sold_out'),
    not_open: count('issuance_not_open'),
    shed: count('issuance_shed'),
    timed_out: count('issuance_timed_out'),
    gave_up: count('issuance_gave_up'),
    requesters: count('issuance_requesters'),
    confirmed: count('issuance_confirmed'),
    unconfirmed: count('issuance_unconfirmed'),
    unexpected: n(unexpected.passes),
    unexpected_rate: n(unexpected.rate),
    http_req_failed_rate: n(values(data, 'http_req_failed').rate),
    dropped_iterations: count('dropped_iterations'),
    request_rps: n(issues / issueWindowS),
    accepted_rps: n(count('issuance_accepted') / issueWindowS),
    p50_ms: n(dur['p(50)']),
    p90_ms: n(dur['p(90)']),
    p95_ms: n(dur['p(95)']),
    p99_ms: n(dur['p(99)']),
    max_ms: n(dur.max),
    time_to_issued_p50_ms: n(tti['p(50)']),
    time_to_issued_p95_ms: n(tti['p(95)']),
    time_to_issued_p99_ms: n(tti['p(99)']),
    // from the first user's POST until every user had a final answer (what the last user saw)
    all_answered_s: n(Math.max((answered.max || 0) - (sent.min || 0), 0)),
    thresholds_ok: th.ok,
    thresholds: { ...th.out, ...latencyTargets(data) },
    latency_targets: latencyTargets(data),
    ...extra,
  };
}

function text(s) {
  const lines = [
    '',
    `  ${s.scenario}: coupon ${s.coupon_id} at ${s.base_url}, ${s.vus_peak} VUs peak, ${s.duration_s}s`,
    `  issuance requests ${s.requests} (${s.request_rps}/s over ${s.issue_window_s}s): accepted ${s.accepted}, ` +
      `duplicate ${s.duplicate}, sold out ${s.sold_out}, not open ${s.not_open}, shed ${s.shed} (gave up ${s.gave_up}), unexpected ${s.unexpected}`,
    `  issuance latency ms: p50 ${s.p50_ms}  p95 ${s.p95_ms}  p99 ${s.p99_ms}  max ${s.max_ms}`,
  ];
  if (s.confirmed || s.unconfirmed) {
    lines.push(
      `  time to ISSUED ms: p50 ${s.time_to_issued_p50_ms}  p95 ${s.time_to_issued_p95_ms}  p99 ${s.time_to_issued_p99_ms}` +
        `  (confirmed ${s.confirmed}, unconfirmed ${s.unconfirmed})`,
    );
  }
  for (const p of s.phases || []) {
    lines.push(
      `  phase ${p.name}: target ${p.target_rps}/s, done ${p.requests} (${p.achieved_rps}/s), accepted ${p.accepted}, ` +
        `dropped ${p.dropped}, p95 ${p.p95_ms} ms, p99 ${p.p99_ms} ms`,
    );
  }
  if (s.all_answered_s) lines.push(`  every user had a final answer ${s.all_answered_s}s after the first POST`);
  // Latency targets that are only reported never read as a failure.
  for (const [k, met] of Object.entries(s.latency_targets)) {
    lines.push(`  latency target ${met ? 'met   ' : 'missed'} ${k} (reported; LATENCY_JUDGED=1 judges it)`);
  }
  for (const [k, ok] of Object.entries(s.thresholds)) {
    if (!k.includes('>=0') && !(k in s.latency_targets)) lines.push(`  threshold ${ok ? 'ok  ' : 'FAIL'} ${k}`);
  }
  lines.push(`  thresholds: ${s.thresholds_ok ? 'all passed' : 'FAILED'}`, '');
  return lines.join('\n');
}

// handleSummary for a scenario; `extra(data)` may add scenario-specific fields.
export function summaryHandler(scenario, extra = () => ({})) {
  return (data) => {
    const s = collect(data, scenario, extra(data));
    const out = { stdout: text(s) };
    if (common.summaryPath) out[common.summaryPath] = JSON.stringify(s, null, 2);
    return out;
  };
}

// For per-phase numbers: a threshold that always passes makes k6 keep the tagged sub-metric.
export function trackSubmetric(thresholds, metric, tag) {
  const key = `${metric}{${tag}}`;
  thresholds[key] = [metric.endsWith('duration') ? 'p(95)>=0' : 'count>=0'];
}

export function submetric(data, metric, tag) {
  const m = data.metrics[`${metric}{${tag}}`];
  return m ? m.values : {};
}
