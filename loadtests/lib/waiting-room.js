// The waiting-room client: join, poll as told, enter with the entry token. Each call feeds the
// wr_* metrics; each user's journey ends in one console line `WR_JOURNEY {json}` that the verifier
// reads (local/verifier/waiting_room.py): order, ETA accuracy, sold-out propagation.
// Every call is asynchronous (http.asyncRequest, timers), so that one VU carries many users at once.
// k6 runs on the cores it measures and spends most of its CPU per call in JavaScript, so a call
// does little: a visit awaits http.asyncRequest itself with parameters built once per user, reads
// each answer synchronously, and records only what no other metric holds (a trend's count is the
// number of calls; an unexpected answer is counted, an expected one is not).
import http from 'k6/http';
import exec from 'k6/execution';
import { setTimeout } from 'k6/timers';
import { Counter, Trend } from 'k6/metrics';
import { common, str } from './config.js';
import { metrics as issuance, issueParams, logOutcome, noAnswer, refusedByWindow } from './api.js';

export const WR_URL = str('WR_URL', 'http://127.0.0.1:8070').replace(/\/+$/, '');
const ENTRY_HEADER = 'Coupon-Entry-Token';
// Both POSTs are idempotent by the contract (a second join keeps the user's place, a second issuance
// is a 409), and this header says so to Go's HTTP client: a request written to a kept-alive
// connection that the server closed as idle at that moment is then sent again instead of ending in
// an EOF. The servers ignore it.
const IDEMPOTENT = 'Idempotency-Key';

export const wr = {
  join: new Trend('wr_join_duration', true), // its count: the joins
  poll: new Trend('wr_poll_duration', true), // its count: the polls
  // arrival -> first answer of the room (queued, admitted or sold out): what a user waits for a page
  answer: new Trend('wr_answer_duration', true),
  queued: new Counter('wr_queued'), // the join answered QUEUED (or PAUSED)
  admitted: new Counter('wr_admitted'),
  soldOut: new Counter('wr_sold_out'), // the room said SOLD_OUT (join or poll)
  entryRefused: new Counter('wr_entry_refused'), // 403 ENTRY_REQUIRED with a token from the room
  unexpected: new Counter('wr_unexpected'), // an answer outside the contract (threshold count==0)
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

const JOIN_TAGS = { name: 'wr-join' };
const POLL_TAGS = { name: 'wr-poll' };

const entriesUrl = (coupon) => `${WR_URL}/api/v1/waiting-room/coupons/${coupon}/entries`;
const call = (url, headers, tags) => ({ url, params: { headers, tags, timeout: common.requestTimeout } });
const joinCall = (user, token, coupon) =>
  call(entriesUrl(coupon), { Authorization: `Bearer ${token}`, [IDEMPOTENT]: `join:${coupon}:${user}` }, JOIN_TAGS);
const pollCall = (token, coupon) => call(`${entriesUrl(coupon)}/me`, { Authorization: `Bearer ${token}` }, POLL_TAGS);

// The room's answer: its body when it has a state, else undefined. An answer outside the contract
// is counted and logged; with allowGone a 404 NOT_IN_QUEUE (a user whose admission ended, or who
// was purged) is expected. No check(): its tagged sample per call would cost k6 the same again.
function answer(res, name, m, allowGone) {
  const status = res.status;
  let body;
  if (status === 200) {
    try {
      body = res.json();
    } catch (_) {
      body = undefined;
    }
    if (body !== undefined && typeof body.state === 'string') return body;
  } else if (allowGone && status === 404 && code(res) === 'NOT_IN_QUEUE') {
    return undefined;
  }
  m.wr.unexpected.add(1);
  warn(name, res);
  return undefined;
}

function joined(res, m) {
  m.wr.join.add(res.timings.duration);
  return answer(res, 'wr-join', m, false);
}

function polled(res, m, allowGone) {
  m.wr.poll.add(res.timings.duration);
  return answer(res, 'wr-poll', m, allowGone);
}

// options: coupon (COUPON_ID), quiet (no metrics)
export async function join(user, token, { coupon = common.couponId, quiet = false } = {}) {
  const c = joinCall(user, token, coupon);
  return joined(await http.asyncRequest('POST', c.url, null, c.params), meters(quiet));
}

// options: allowGone (a 404 NOT_IN_QUEUE is an answer), coupon, quiet
export async function poll(token, { allowGone = false, coupon = common.couponId, quiet = false } = {}) {
  const c = pollCall(token, coupon);
  return polled(await http.asyncRequest('GET', c.url, null, c.params), meters(quiet), allowGone);
}

function code(res) {
  try {
    return res.json('code');
  } catch (_) {
    return undefined;
  }
}

// POST …/issuances with the entry token; 503 is retried after Retry-After. Returns the outcome:
// accepted | duplicate | sold_out | not_open (the coupon's window, lib/api.js) | entry_refused | shed |
// unexpected. With LOG_OUTCOMES=1 each 202,
// 503 and unanswered attempt prints its ISSUE_OUTCOME line, as the direct path does (lib/api.js).
export async function issueWithEntry(
  user,
  token,
  entryToken,
  retries,
  { coupon = common.couponId, quiet = false } = {},
) {
  const { wr: w, issuance: im } = meters(quiet);
  const url = `${common.baseUrl}/api/v1/coupons/${coupon}/issuances`;
  const params = issueParams({
    headers: { Authorization: `Bearer ${token}`, [ENTRY_HEADER]: entryToken, [IDEMPOTENT]: `issue:${coupon}:${user}` },
    tags: { name: 'issue' },
    timeout: common.requestTimeout,
  });
  let outcome = 'shed';
  for (let attempt = 0; outcome === 'shed' && attempt <= retries; attempt++) {
    if (attempt > 0) await pause(1000);
    const res = await http.asyncRequest('POST', url, null, params);
    const status = res.status;
    im.requests.add(1);
    im.duration.add(res.timings.duration);
    if (noAnswer(status)) im.timedOut.add(1);
    outcome = 'unexpected';
    if (status === 202) {
      let st;
      try {
        st = res.json('status');
      } catch (_) {
        st = undefined;
      }
      if (st === 'PENDING') outcome = 'accepted';
    } else if (status === 409 && code(res) === 'ALREADY_ISSUED') {
      outcome = 'duplicate';
    } else if (status === 410 && code(res) === 'SOLD_OUT') {
      outcome = 'sold_out';
    } else if (status === 403 && code(res) === 'ENTRY_REQUIRED') {
      outcome = 'entry_refused';
    } else if (status === 403 && refusedByWindow(code(res))) {
      outcome = 'not_open';
    } else if (status === 503) {
      outcome = 'shed';
    }
    if (!quiet) logOutcome(user, status, outcome); // a warm-up's users hold no row of the judged coupon
    switch (outcome) {
      case 'accepted':
        im.accepted.add(1);
        break;
      case 'duplicate':
        im.duplicate.add(1);
        break;
      case 'sold_out':
        im.soldOut.add(1);
        break;
      case 'not_open':
        im.notOpen.add(1);
        break;
      case 'shed':
        im.shed.add(1);
        break;
      case 'entry_refused':
        w.entryRefused.add(1);
        break;
      default:
        break;
    }
    const ok = outcome !== 'unexpected' && outcome !== 'entry_refused';
    im.unexpected.add(!ok && outcome !== 'shed');
    if (!ok && outcome !== 'shed') warn('issue', res);
  }
  if (outcome === 'shed') im.gaveUp.add(1);
  if (outcome !== 'shed' && outcome !== 'unexpected') im.requesters.add(1);
  return outcome;
}

// One user's whole visit: arrive, join, poll as told until admitted / sold out / closed (or
// maxWaitMs), enter once when admitted. Returns the journey the verifier reads, and prints it
// unless quiet (then no metric either); coupon defaults to COUPON_ID.
export async function visit(user, token, { maxWaitMs, shedRetries, coupon, quiet = false }) {
  const opts = { coupon, quiet };
  const m = meters(quiet);
  const w = m.wr;
  const target = coupon || common.couponId;
  const pollNext = pollCall(token, target);
  const c = joinCall(user, token, target);
  const j = { user, sentAt: Date.now() };
  let e = joined(await http.asyncRequest('POST', c.url, null, c.params), m);
  j.joinedAt = Date.now();
  w.answer.add(j.joinedAt - j.sentAt);
  // A join the room did not answer (a restart, a 503) is sent again a second later, as the page
  // does, while the visit may last; a visit that never got in still ends in a journey line.
  while (!e && Date.now() - j.sentAt < maxWaitMs) {
    await pause(1000);
    j.joinRetries = (j.joinRetries || 0) + 1;
    e = joined(await http.asyncRequest('POST', c.url, null, c.params), m);
    j.joinedAt = Date.now();
  }
  if (!e) {
    j.end = 'error';
    if (!quiet) console.log(`WR_JOURNEY ${JSON.stringify(j)}`);
    return j;
  }
  j.joinState = e.state;
  j.position = e.position || 0;
  j.etaS = e.etaSeconds === undefined ? null : e.etaSeconds;
  j.polls = 0;
  if (e.state === 'QUEUED' || e.state === 'PAUSED') w.queued.add(1);
  while ((e.state === 'QUEUED' || e.state === 'PAUSED') && Date.now() - j.sentAt < maxWaitMs) {
    j.lastPollAfterMs = e.pollAfterMs;
    await pause(Math.max(e.pollAfterMs, 50));
    const next = polled(await http.asyncRequest('GET', pollNext.url, null, pollNext.params), m, false);
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
