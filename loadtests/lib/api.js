// The coupon-api client the scenarios share: one function per call, each classifying the answer
// into an expected business outcome or an unexpected failure, and feeding the custom metrics.
import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Counter, Rate, Trend } from 'k6/metrics';
import { bool, common } from './config.js';

export const metrics = {
  requests: new Counter('issuance_requests'), // every POST sent
  timedOut: new Counter('issuance_timed_out'), // no answer within REQUEST_TIMEOUT: like a 503, it may have landed
  accepted: new Counter('issuance_accepted'), // 202: reserved, on its way to MySQL
  duplicate: new Counter('issuance_duplicate'), // 409 ALREADY_ISSUED
  soldOut: new Counter('issuance_sold_out'), // 410 SOLD_OUT
  notOpen: new Counter('issuance_not_open'), // 403 NOT_OPEN_YET / CLOSED / PAUSED
  shed: new Counter('issuance_shed'), // 503 UNAVAILABLE (each one, retried after Retry-After)
  gaveUp: new Counter('issuance_gave_up'), // still 503 after every retry
  requesters: new Counter('issuance_requesters'), // users whose first attempt got a final answer
  duration: new Trend('issuance_duration', true), // POST latency, every answer
  confirmed: new Counter('issuance_confirmed'), // accepted and later seen ISSUED
  unconfirmed: new Counter('issuance_unconfirmed'), // accepted but not ISSUED by the deadline
  timeToIssued: new Trend('time_to_issued', true), // 202 received -> status ISSUED seen
  // Per user, not per request (timeline: true): seconds since the scenario started when a user's
  // first POST left and when the user had a final answer; min(sent)..max(answered) is how long the
  // last user waited for an answer.
  sentAt: new Trend('issuance_sent_at_s'),
  answeredAt: new Trend('issuance_answered_at_s'),
  unexpected: new Rate('unexpected'), // any answer outside the contract's expected outcomes
};

// Status codes http_req_failed must not count: the business outcomes of the contract.
export const EXPECTED_STATUSES = [200, 202, 409, 410, 503];

const NOT_OPEN_CODES = ['NOT_OPEN_YET', 'CLOSED', 'PAUSED'];

// The coupon's window as the API shows it, read once in setup() (couponWindow) and handed to every
// VU (useWindow): a 403 CLOSED from closesAt on, or NOT_OPEN_YET before opensAt, is the coupon's
// own schedule speaking (the examples' coupons close a set time after the install), not a fault;
// inside the window either is unexpected, and so is PAUSED. A run against a coupon that has
// already closed stops in setup() with the reason instead of counting refusals.
const CLOCK_SKEW_MS = 2000;
let schedule = null;

export function couponWindow() {
  const res = http.get(`${common.baseUrl}/api/v1/coupons/${common.couponId}`, { tags: { name: 'coupon_window' } });
  if (res.status !== 200) return null; // the scenario's own answers say what is wrong
  const c = res.json();
  if (c.state === 'CLOSED') {
    exec.test.abort(
      `coupon ${common.couponId} closed at ${c.closesAt}: register it with a later closesAt ` +
        '(or a duration from a new opening) before load-testing it',
    );
  }
  return { opensAt: Date.parse(c.opensAt), closesAt: Date.parse(c.closesAt) };
}

export function useWindow(window) {
  schedule = window || null;
}

// With a window known, a 403 on the issuance POST is judged by its code (the `unexpected` Rate),
// so http_req_failed leaves it out there; see issueParams.
const WINDOW_STATUSES = http.expectedStatuses(...EXPECTED_STATUSES, 403);

// The issuance POST's parameters with this VU's window applied.
export function issueParams(params) {
  if (schedule) params.responseCallback = WINDOW_STATUSES;
  return params;
}

// Whether a 403 with this code is the window's own answer at this moment.
export function refusedByWindow(code) {
  if (!schedule) return false;
  const now = Date.now();
  return (
    (code === 'CLOSED' && now >= schedule.closesAt - CLOCK_SKEW_MS) ||
    (code === 'NOT_OPEN_YET' && now < schedule.opensAt + CLOCK_SKEW_MS)
  );
}

function problemCode(res) {
  try {
    return res.json('code');
  } catch (_) {
    return undefined;
  }
}

const ISSUE_URL = `${common.baseUrl}/api/v1/coupons/${common.couponId}/issuances`;

function params(token, name) {
  return {
    headers: { Authorization: `Bearer ${token}` },
    tags: { name },
    timeout: common.requestTimeout,
  };
}

// Unexpected answers are logged by the first LOG_VUS VUs only: a sample, not 10,000 lines.
const LOG_VUS = parseInt(__ENV.LOG_VUS || '20', 10);

// LOG_OUTCOMES=1: one console line `ISSUE_OUTCOME <user> accepted|shed|timed_out` per 202, 503 and
// request without an answer, so the verifier (--outcomes) compares the users answered 202 with the
// users holding a row, instead of counts in which one user's lost 202 hides behind another's 503
// that landed. At most one 202 per unit of stock; off by default.
const LOG_OUTCOMES = bool('LOG_OUTCOMES', false);

// No answer from the API: none at all (status 0), or a gateway's 502 or 504 (RFC 9110 15.6.3,
// 15.6.5), which lost the instance after the request reached it. Either way the instance may have
// reserved and sent the user's record: an ambiguous answer, as a timeout is.
export function noAnswer(status) {
  return status === 0 || status === 502 || status === 504;
}

// The ISSUE_OUTCOME line of one answer when LOG_OUTCOMES=1; every issuance path (issueOnce, the
// waiting room's issueWithEntry) prints through this one.
export function logOutcome(user, status, outcome) {
  if (LOG_OUTCOMES && (outcome === 'accepted' || outcome === 'shed' || noAnswer(status))) {
    console.log(`ISSUE_OUTCOME ${user} ${noAnswer(status) ? 'timed_out' : outcome}`);
  }
}

function record(ok, res, what) {
  metrics.unexpected.add(!ok);
  if (!ok && exec.vu.idInTest <= LOG_VUS) {
    const body = res.body ? String(res.body).slice(0, 200) : res.error;
    console.warn(`unexpected ${what}: status=${res.status} ${body}`);
  }
}

function retryAfterSeconds(res) {
  const v = parseFloat(res.headers['Retry-After']);
  return Number.isNaN(v) ? 1 : Math.min(Math.max(v, 0.1), 5);
}

// One POST; returns {outcome, res} with outcome in accepted | duplicate | sold_out | not_open |
// shed | unexpected. allowNotOpen: whether 403 NOT_OPEN_YET/CLOSED/PAUSED is expected here at any
// time; otherwise only as the coupon's window has it (useWindow).
export function issueOnce(user, token, allowNotOpen) {
  const res = http.post(ISSUE_URL, null, issueParams(params(token, 'issue')));
  metrics.requests.add(1);
  metrics.duration.add(res.timings.duration);
  if (noAnswer(res.status)) metrics.timedOut.add(1);
  let outcome = 'unexpected';
  if (res.status === 202) {
    let body = {};
    try {
      body = res.json();
    } catch (_) {
      /* checked below */
    }
    if (body.status === 'PENDING' && body.userId === user) outcome = 'accepted';
  } else if (res.status === 409 && problemCode(res) === 'ALREADY_ISSUED') {
    outcome = 'duplicate';
  } else if (res.status === 410 && problemCode(res) === 'SOLD_OUT') {
    outcome = 'sold_out';
  } else if (
    res.status === 403 &&
    (allowNotOpen ? NOT_OPEN_CODES.includes(problemCode(res)) : refusedByWindow(problemCode(res)))
  ) {
    outcome = 'not_open';
  } else if (res.status === 503) {
    outcome = 'shed';
  }
  // No check() here: the `unexpected` Rate already says it, and a check costs the client a tagged
  // sample per request (about a sixth of k6's CPU per issuance). Status and coupon reads keep theirs.
  const ok = outcome !== 'unexpected';
  record(ok, res, 'issue');
  logOutcome(user, res.status, outcome);
  switch (outcome) {
    case 'accepted':
      metrics.accepted.add(1);
      break;
    case 'duplicate':
      metrics.duplicate.add(1);
      break;
    case 'sold_out':
      metrics.soldOut.add(1);
      break;
    case 'not_open':
      metrics.notOpen.add(1);
      break;
    case 'shed':
      metrics.shed.add(1);
      break;
    default:
      break;
  }
  return { outcome, res };
}

function sinceStart() {
  return (Date.now() - exec.scenario.startTime) / 1000;
}

// POST, honouring 503 + Retry-After up to `retries` times, as a well-behaved client would.
// timeline: record when the user's first POST left and when the final answer came (the summary's
// issue window and time until every user had an answer); off where the window is known (arrival rate).
export function issue(user, token, { retries = 3, allowNotOpen = false, timeline = true } = {}) {
  if (timeline) metrics.sentAt.add(sinceStart());
  let result = issueOnce(user, token, allowNotOpen);
  for (let i = 0; result.outcome === 'shed' && i < retries; i++) {
    sleep(retryAfterSeconds(result.res));
    result = issueOnce(user, token, allowNotOpen);
  }
  if (timeline) metrics.answeredAt.add(sinceStart());
  // add(0) too, so the metric exists and its threshold is evaluated even when nobody gave up.
  metrics.gaveUp.add(result.outcome === 'shed' ? 1 : 0);
  return result;
}

// GET …/issuances/me; returns PENDING | ISSUED | NONE, or undefined on an unexpected answer.
export function status(user, token) {
  const url = `${common.baseUrl}/api/v1/coupons/${common.couponId}/issuances/me`;
  const res = http.get(url, params(token, 'status'));
  let st;
  if (res.status === 200) {
    try {
      st = res.json('status');
    } catch (_) {
      st = undefined;
    }
  }
  const ok = check(res, { 'status: 200 with a known status': () => ['PENDING', 'ISSUED', 'NONE'].includes(st) });
  record(ok, res, 'status');
  return ok ? st : undefined;
}

// After a 202: poll the status until ISSUED or the deadline; feeds time_to_issued.
export function awaitIssued(user, token, acceptedAtMs, intervalS, deadlineS) {
  while (Date.now() - acceptedAtMs < deadlineS * 1000) {
    sleep(intervalS);
    if (status(user, token) === 'ISSUED') {
      metrics.confirmed.add(1);
      metrics.unconfirmed.add(0);
      metrics.timeToIssued.add(Date.now() - acceptedAtMs);
      return true;
    }
  }
  metrics.unconfirmed.add(1);
  console.warn(`${user}: accepted but not ISSUED within ${deadlineS}s`);
  return false;
}

// GET the public coupon view.
export function couponInfo() {
  const url = `${common.baseUrl}/api/v1/coupons/${common.couponId}`;
  const res = http.get(url, { tags: { name: 'info' }, timeout: common.requestTimeout });
  let state;
  if (res.status === 200) {
    try {
      state = res.json('state');
    } catch (_) {
      state = undefined;
    }
  }
  const ok = check(res, { 'info: 200 with a state': () => typeof state === 'string' });
  record(ok, res, 'info');
  return state;
}
