// The waiting-room client: join, poll as told, enter with the entry token. Each call feeds the
// wr_* metrics; each user's journey ends in one console line `WR_JOURNEY {json}` that the verifier
// reads (local/verifier/waiting_room.py): order, ETA accuracy, sold-out propagation.
// Every call is asynchronous (http.asyncRequest, timers), so that one VU carries many users at once.
import http from 'k6/http';
import exec from 'k6/execution';
import { setTimeout } from 'k6/timers';
import { Counter, Rate, Trend } from 'k6/metrics';
import { common, str } from './config.js';
import { metrics as issuance } from './api.js';

export const WR_URL = str('WR_URL', 'http://127.0.0.1:8070').replace(/\/+$/, '');
const ENTRY_HEADER = 'Coupon-Entry-Token';
// Both POSTs are idempotent by the contract (a second join keeps the user's place, a second issuance
// is a 409), and this header says so to Go's HTTP client: a request written to a kept-alive
// connection that the server closed as idle at that moment is then sent again instead of ending in
// an EOF. The servers ignore it.
const IDEMPOTENT = 'Idempotency-Key';

export const wr = {
  join: new Trend('wr_join_duration', true),
  poll: new Trend('wr_poll_duration', true),
  // arrival -> first answer of the room (queued, admitted or sold out): what a user waits for a page
  answer: new Trend('wr_answer_duration', true),
  joined: new Counter('wr_joined'),
  queued: new Counter('wr_queued'), // the join answered QUEUED (or PAUSED)
  admitted: new Counter('wr_admitted'),
  soldOut: new Counter('wr_sold_out'), // the room said SOLD_OUT (join or poll)
  entryRefused: new Counter('wr_entry_refused'), // 403 ENTRY_REQUIRED with a token from the room
  polls: new Counter('wr_polls'),
  unexpected: new Rate('wr_unexpected'),
};

// The warm-up's visits make the same calls outside every metric the run is judged by.
const unrecorded = { add() {} };
const QUIET = {
  wr: Object.fromEntries(Object.keys(wr).map((k) => [k, unrecorded])),
  issuance: Object.fromEntries(Object.keys(issuance).map((k) => [k, unrecorded])),
};
const RECORDED = { wr, issuance };
const meters = (quiet) => (quiet ? QUIET : RECORDED);

const LOG_VUS = parseInt(__ENV.LOG_VUS || '20', 10);
// a VU carries many users: a few lines each from the first LOG_VUS VUs say enough
const LOG_PER_VU = 5;
let logged = 0;

export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function warn(what, res) {
  if (exec.vu.idInTest <= LOG_VUS && logged++ < LOG_PER_VU) {
    console.warn(`unexpected ${what}: status=${res.status} ${res.body ? String(res.body).slice(0, 200) : res.error}`);
  }
}

// allowGone: a 404 NOT_IN_QUEUE is an expected answer (a user whose admission ended, or who was purged).
async function entryCall(method, path, token, name, { allowGone = false, coupon = common.couponId, m = RECORDED, key } = {}) {
  const headers = { Authorization: `Bearer ${token}` };
  if (key) headers[IDEMPOTENT] = key;
  const params = { headers, tags: { name }, timeout: common.requestTimeout };
  const url = `${WR_URL}/api/v1/waiting-room/coupons/${coupon}${path}`;
  const res = await http.asyncRequest(method, url, null, params);
  let body;
  if (res.status === 200) {
    try { body = res.json(); } catch (_) { body = undefined; }
  }
  const gone = allowGone && res.status === 404 && code(res) === 'NOT_IN_QUEUE';
  // no check(): its tagged sample per call costs k6 CPU taken from the room on a shared host;
  // wr_unexpected says the same
  const ok = gone || (body !== undefined && typeof body.state === 'string');
  m.wr.unexpected.add(!ok);
  if (!ok) warn(name, res);
  return { res, body };
}

// options: coupon (COUPON_ID), quiet (no metrics)
export async function join(user, token, { coupon = common.couponId, quiet = false } = {}) {
  const m = meters(quiet);
  const r = await entryCall('POST', '/entries', token, 'wr-join', { coupon, m, key: `join:${coupon}:${user}` });
  m.wr.join.add(r.res.timings.duration);
  m.wr.joined.add(1);
  return r.body;
}

// options: allowGone (a 404 NOT_IN_QUEUE is an answer), coupon, quiet
export async function poll(token, { allowGone = false, coupon, quiet = false } = {}) {
  const m = meters(quiet);
  const r = await entryCall('GET', '/entries/me', token, 'wr-poll', { allowGone, coupon, m });
  m.wr.poll.add(r.res.timings.duration);
  m.wr.polls.add(1);
  return r.body;
}

function code(res) {
  try { return res.json('code'); } catch (_) { return undefined; }
}

// POST …/issuances with the entry token; 503 is retried after Retry-After. Returns the outcome:
// accepted | duplicate | sold_out | entry_refused | shed | unexpected.
export async function issueWithEntry(user, token, entryToken, retries, { coupon = common.couponId, quiet = false } = {}) {
  const { wr: w, issuance: im } = meters(quiet);
  const url = `${common.baseUrl}/api/v1/coupons/${coupon}/issuances`;
  const params = {
    headers: { Authorization: `Bearer ${token}`, [ENTRY_HEADER]: entryToken, [IDEMPOTENT]: `issue:${coupon}:${user}` },
    tags: { name: 'issue' },
    timeout: common.requestTimeout,
  };
  let outcome = 'shed';
  for (let attempt = 0; outcome === 'shed' && attempt <= retries; attempt++) {
    if (attempt > 0) await pause(1000);
    const res = await http.asyncRequest('POST', url, null, params);
    im.requests.add(1);
    im.duration.add(res.timings.duration);
    if (res.status === 0) im.timedOut.add(1);
    outcome = 'unexpected';
    if (res.status === 202) {
      let st;
      try { st = res.json('status'); } catch (_) { st = undefined; }
      if (st === 'PENDING') outcome = 'accepted';
    } else if (res.status === 409 && code(res) === 'ALREADY_ISSUED') {
      outcome = 'duplicate';
    } else if (res.status === 410 && code(res) === 'SOLD_OUT') {
      outcome = 'sold_out';
    } else if (res.status === 403 && code(res) === 'ENTRY_REQUIRED') {
      outcome = 'entry_refused';
    } else if (res.status === 503) {
      outcome = 'shed';
    }
    switch (outcome) {
      case 'accepted': im.accepted.add(1); break;
      case 'duplicate': im.duplicate.add(1); break;
      case 'sold_out': im.soldOut.add(1); break;
      case 'shed': im.shed.add(1); break;
      case 'entry_refused': w.entryRefused.add(1); break;
      default: break;
    }
    const ok = outcome !== 'unexpected' && outcome !== 'entry_refused';
    im.unexpected.add(!ok && outcome !== 'shed');
    if (!ok && outcome !== 'shed') warn('issue', res);
  }
  im.gaveUp.add(outcome === 'shed' ? 1 : 0);
  if (outcome !== 'shed' && outcome !== 'unexpected') im.requesters.add(1);
  return outcome;
}

// One user's whole visit: arrive, join, poll as told until admitted / sold out / closed (or
// maxWaitMs), enter once when admitted. Returns the journey the verifier reads, and prints it
// unless quiet (then no metric either); coupon defaults to COUPON_ID.
export async function visit(user, token, { maxWaitMs, shedRetries, coupon, quiet = false }) {
  const opts = { coupon, quiet };
  const w = meters(quiet).wr;
  const j = { user, sentAt: Date.now() };
  let e = await join(user, token, opts);
  j.joinedAt = Date.now();
  w.answer.add(j.joinedAt - j.sentAt);
  if (!e) { j.end = 'error'; return j; }
  j.joinState = e.state;
  j.position = e.position || 0;
  j.etaS = e.etaSeconds === undefined ? null : e.etaSeconds;
  j.polls = 0;
  if (e.state === 'QUEUED' || e.state === 'PAUSED') w.queued.add(1);
  while ((e.state === 'QUEUED' || e.state === 'PAUSED') && Date.now() - j.sentAt < maxWaitMs) {
    j.lastPollAfterMs = e.pollAfterMs;
    await pause(Math.max(e.pollAfterMs, 50));
    const next = await poll(token, opts);
    j.polls += 1;
    if (!next) continue; // counted as unexpected; poll again after the same pause
    e = next;
  }
  j.state = e.state;
  j.endedAt = Date.now();
  if (e.state === 'ADMITTED') {
    w.admitted.add(1);
    j.admittedAt = Date.parse(e.admittedAt);
    j.admittedSeenAt = j.endedAt;
    j.issue = await issueWithEntry(user, token, e.entryToken, shedRetries, opts);
    j.issuedAt = Date.now();
  } else if (e.state === 'SOLD_OUT') {
    w.soldOut.add(1);
    j.soldOutAt = j.endedAt;
  }
  j.end = j.issue || e.state;
  if (!quiet) console.log(`WR_JOURNEY ${JSON.stringify(j)}`);
  return j;
}
