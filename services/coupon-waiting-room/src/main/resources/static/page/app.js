// The waiting-room page: sign in, join, wait as the room says, enter with the entry token.
// The contract is docs/waiting-room.md (room) and docs/contract.md (API); the reference client is
// loadtests/lib/waiting-room.js. Timing rules:
// - one pending call at a time, due at (time its answer arrived + pollAfterMs or Retry-After): never
//   sooner. A browser throttles or freezes the timers of a hidden tab; the once-a-second tick and
//   the wake-up events run the call when it is overdue, so nothing piles up and nothing is lost;
// - the countdown and every figure are recomputed from the last answer and the clock, not counted.
(function () {
  'use strict';

  const ENTRY_HEADER = 'Coupon-Entry-Token';
  const OFFLINE_RETRY_MS = 5000;
  const STATUS_CHECKS = 60; // issuance status reads after a 202 before giving up (about 2 min)

  const params = new URLSearchParams(window.location.search);
  const $ = (id) => document.getElementById(id);
  const el = {
    main: $('main'),
    title: $('title'),
    brand: $('brand'),
    logo: $('logo'),
    lang: $('lang'),
    status: $('status'),
    detail: $('detail'),
    signin: $('signin'),
    token: $('token'),
    tokenLabel: $('token-label'),
    join: $('join'),
    queue: $('queue'),
    positionLabel: $('position-label'),
    position: $('position'),
    etaLabel: $('eta-label'),
    eta: $('eta'),
    bar: $('bar'),
    note: $('note'),
    retry: $('retry'),
    again: $('again'),
    announce: $('announce'),
  };

  let config = { title: {}, logoAlt: {}, colors: {}, texts: {}, roomBaseUrl: '', apiBaseUrl: '' };
  let lang = 'en';
  const s = {
    state: 'LOADING', // LOADING SIGN_IN JOINING QUEUED PAUSED ADMITTED PENDING ISSUED SOLD_OUT CLOSED NOT_OPEN_YET GONE SIGNED_OUT ERROR NO_EVENT
    token: '',
    coupon: null,
    position: null,
    announced: null,
    firstPosition: null,
    etaAt: null, // clock time the estimate runs out
    entryToken: null,
    entryExpiresAt: null,
    errorCode: null,
    retry: null, // {kind: 'busy'|'offline', at}
    statusChecks: 0,
    entryRefusals: 0,
  };
  // the one pending call
  let due = null; // {at, run}
  let timer = null;
  let inFlight = false;

  // ---- texts ----------------------------------------------------------------------------------
  function text(key, values) {
    const own = (config.texts && config.texts[lang]) || {};
    const base = window.ROOM_TEXTS[lang] || window.ROOM_TEXTS.en;
    let t = own[key] !== undefined ? own[key] : base[key];
    if (t === undefined) t = window.ROOM_TEXTS.en[key] || key;
    return String(t).replace(/\{(\w+)\}/g, (m, name) => (values && values[name] !== undefined ? values[name] : m));
  }
  const localized = (v) => (v && typeof v === 'object' ? v[lang] || v.en || '' : v || '');

  function pickLanguage() {
    const asked = params.get('lang') || safeGet(localStorage, 'room.lang') || navigator.language || 'en';
    return asked.toLowerCase().startsWith('ko') ? 'ko' : 'en';
  }
  function safeGet(store, key) {
    try {
      return store.getItem(key);
    } catch (_) {
      return null;
    }
  }
  function safeSet(store, key, value) {
    try {
      store.setItem(key, value);
    } catch (_) {
      /* private mode */
    }
  }

  // ---- branding -------------------------------------------------------------------------------
  const COLOR_VARS = {
    primary: '--primary',
    primaryText: '--primary-text',
    background: '--background',
    surface: '--surface',
    text: '--text',
  };
  function brand() {
    const root = document.documentElement;
    Object.entries(config.colors || {}).forEach(([k, v]) => {
      if (COLOR_VARS[k] && typeof v === 'string' && CSS.supports('color', v)) root.style.setProperty(COLOR_VARS[k], v);
    });
    if (typeof config.logo === 'string' && config.logo) el.logo.src = config.logo;
    el.logo.hidden = config.logo === null;
  }

  async function loadConfig() {
    try {
      const res = await fetch('config.json', { cache: 'no-cache' });
      if (res.ok) config = Object.assign(config, await res.json());
    } catch (_) {
      /* the built-in texts and colours */
    }
  }

  // ---- rendering ------------------------------------------------------------------------------
  function duration(seconds) {
    const m = Math.floor(seconds / 60);
    const sec = seconds % 60;
    return m > 0 ? text('minutes', { m, s: sec }) : text('seconds', { s: sec });
  }

  const HEADLINES = {
    LOADING: 'loading',
    SIGN_IN: 'signIn',
    JOINING: 'joining',
    QUEUED: 'queued',
    PAUSED: 'paused',
    ADMITTED: 'admitted',
    PENDING: 'pending',
    ISSUED: 'issued',
    SOLD_OUT: 'soldOut',
    CLOSED: 'closed',
    NOT_OPEN_YET: 'notOpenYet',
    GONE: 'gone',
    SIGNED_OUT: 'signedOut',
    ERROR: 'error',
    NO_EVENT: 'noEvent',
  };
  const FINAL = new Set(['ISSUED', 'SOLD_OUT', 'CLOSED', 'GONE', 'SIGNED_OUT', 'ERROR', 'NO_EVENT']);

  function render() {
    const title = localized(config.title) || text('loading');
    document.documentElement.lang = lang;
    document.title = title;
    el.title.textContent = title;
    el.brand.textContent = title;
    el.logo.alt = localized(config.logoAlt);
    el.lang.textContent = text('switchTo');
    el.lang.setAttribute('aria-label', text('switchLabel'));
    el.tokenLabel.textContent = text('tokenLabel');
    el.join.textContent = text('join');
    el.again.textContent = text('joinAgain');
    el.positionLabel.textContent = text('positionLabel');
    el.etaLabel.textContent = text('etaLabel');
    el.note.textContent = text('note');
    el.status.textContent = text(HEADLINES[s.state], { code: s.errorCode || '' });
    el.detail.textContent = s.state === 'ISSUED' ? text('issuedDetail') : '';
    el.signin.hidden = !(s.state === 'SIGN_IN' || s.state === 'SIGNED_OUT');
    el.queue.hidden = !(s.state === 'QUEUED' || s.state === 'PAUSED');
    el.again.hidden = !(s.state === 'GONE' || s.state === 'ERROR');
    el.main.setAttribute('aria-busy', String(s.state === 'LOADING' || s.state === 'JOINING'));
    document.body.dataset.state = s.state;
    tick();
  }

  // Once a second: the figures from the clock, and the pending call if it is overdue.
  function tick() {
    const now = Date.now();
    if (s.position !== null) el.position.textContent = String(s.position);
    if (s.etaAt !== null) {
      const left = Math.max(0, Math.ceil((s.etaAt - now) / 1000));
      el.eta.textContent = left > 0 ? duration(left) : text('etaSoon');
    }
    if (s.firstPosition && s.position !== null) {
      const done = Math.min(1, Math.max(0, 1 - (s.position - 1) / s.firstPosition));
      el.bar.style.width = `${Math.round(done * 100)}%`;
    }
    if (s.retry) {
      const left = Math.max(1, Math.ceil((s.retry.at - now) / 1000));
      el.retry.textContent = text(s.retry.kind, { seconds: left });
      el.retry.hidden = false;
    } else {
      el.retry.hidden = true;
    }
    if (due && !inFlight && now >= due.at) fire();
  }

  function setState(next) {
    const changed = next !== s.state;
    s.state = next;
    render();
    if (changed && next !== 'QUEUED' && next !== 'LOADING') {
      announce(el.status.textContent);
      if (FINAL.has(next)) el.status.focus();
    }
  }

  function announce(message) {
    // a new text node each time, so that the same words said twice are announced twice
    el.announce.textContent = '';
    window.setTimeout(() => {
      el.announce.textContent = message;
    }, 50);
  }

  // ---- the one pending call -------------------------------------------------------------------
  function schedule(run, afterMs) {
    window.clearTimeout(timer);
    due = { at: Date.now() + Math.max(0, afterMs), run };
    timer = window.setTimeout(tick, Math.max(0, afterMs));
  }
  function cancel() {
    window.clearTimeout(timer);
    due = null;
    s.retry = null;
  }

  async function fire() {
    const run = due.run;
    due = null;
    window.clearTimeout(timer);
    inFlight = true;
    try {
      await run();
    } finally {
      inFlight = false;
    }
  }

  function retryAfterMs(res) {
    const v = res && res.headers.get('Retry-After');
    if (!v) return OFFLINE_RETRY_MS;
    const secs = Number(v);
    if (Number.isFinite(secs)) return Math.max(1, secs) * 1000;
    const at = Date.parse(v);
    return Number.isFinite(at) ? Math.max(1000, at - Date.now()) : OFFLINE_RETRY_MS;
  }
  function later(kind, run, ms) {
    s.retry = { kind, at: Date.now() + ms };
    schedule(run, ms);
    render();
  }

  async function call(method, url, headers) {
    const res = await fetch(url, {
      method,
      headers: Object.assign({ Authorization: `Bearer ${s.token}` }, headers || {}),
      cache: 'no-store',
      credentials: 'omit',
    });
    let body = null;
    try {
      body = await res.json();
    } catch (_) {
      body = null;
    }
    return { res, body, code: body && body.code };
  }

  // ---- the room -------------------------------------------------------------------------------
  const entries = () => `${config.roomBaseUrl || ''}/api/v1/waiting-room/coupons/${s.coupon}/entries`;

  async function join() {
    cancel();
    setState('JOINING');
    await roomCall('POST', entries(), join);
  }
  async function poll() {
    await roomCall('GET', `${entries()}/me`, poll);
  }

  async function roomCall(method, url, again) {
    let r;
    try {
      r = await call(method, url);
    } catch (_) {
      later('offline', again, OFFLINE_RETRY_MS);
      return;
    }
    s.retry = null;
    const { res, body, code } = r;
    if (res.status === 200 && body && typeof body.state === 'string') {
      onEntry(body);
      return;
    }
    if (res.status === 503) {
      later('busy', again, retryAfterMs(res));
      return;
    }
    if (res.status === 401) {
      signedOut();
      return;
    }
    if (res.status === 404 && code === 'NOT_IN_QUEUE') {
      s.position = null;
      setState('GONE');
      return;
    }
    if (res.status === 404 && code === 'COUPON_NOT_FOUND') {
      fail('COUPON_NOT_FOUND');
      return;
    }
    fail(code || `HTTP ${res.status}`);
  }

  function onEntry(e) {
    const now = Date.now();
    if (e.state === 'QUEUED' || e.state === 'PAUSED') {
      if (typeof e.position === 'number') {
        if (s.firstPosition === null || e.position > s.firstPosition) s.firstPosition = e.position;
        s.position = e.position;
      }
      s.etaAt = typeof e.etaSeconds === 'number' ? now + e.etaSeconds * 1000 : null;
      // never sooner than told; an answer without pollAfterMs is outside the contract: a safe pause
      schedule(poll, typeof e.pollAfterMs === 'number' ? e.pollAfterMs : OFFLINE_RETRY_MS);
      setState(e.state);
      if (s.position !== null && s.position !== s.announced) {
        s.announced = s.position;
        announce(text('announcePosition', { position: s.position }));
      }
    } else if (e.state === 'ADMITTED') {
      s.entryToken = e.entryToken;
      s.entryExpiresAt = e.expiresAt ? Date.parse(e.expiresAt) : null;
      s.position = null;
      setState('ADMITTED');
      schedule(issue, 0);
    } else if (e.state === 'SOLD_OUT' || e.state === 'CLOSED') {
      finish(e.state);
    } else {
      fail(e.state);
    }
  }

  // ---- the API --------------------------------------------------------------------------------
  const issuances = () => `${config.apiBaseUrl || ''}/api/v1/coupons/${s.coupon}/issuances`;
  const entryValid = () => s.entryExpiresAt === null || Date.now() < s.entryExpiresAt;

  async function issue() {
    let r;
    try {
      r = await call('POST', issuances(), { [ENTRY_HEADER]: s.entryToken });
    } catch (_) {
      later('offline', issue, OFFLINE_RETRY_MS);
      return;
    }
    s.retry = null;
    const { res, body, code } = r;
    if (res.status === 202) {
      s.statusChecks = 0;
      setState('PENDING');
      schedule(checkIssued, 1000);
      return;
    }
    if (res.status === 409 && code === 'ALREADY_ISSUED') {
      s.statusChecks = 0;
      await checkIssued();
      return;
    }
    if (res.status === 410) {
      finish('SOLD_OUT');
      return;
    }
    if (res.status === 503) {
      later('busy', issue, retryAfterMs(res));
      return;
    }
    if (res.status === 401) {
      signedOut();
      return;
    }
    if (res.status === 403 && code === 'CLOSED') {
      finish('CLOSED');
      return;
    }
    if (res.status === 403 && (code === 'PAUSED' || code === 'NOT_OPEN_YET')) {
      // the entry stays good until it expires: try again then; after it the room decides anew
      setState(code === 'PAUSED' ? 'PAUSED' : 'NOT_OPEN_YET');
      schedule(entryValid() ? issue : poll, 5000);
      return;
    }
    if (res.status === 403 && code === 'ENTRY_REQUIRED' && ++s.entryRefusals <= 3) {
      // the entry token expired or the gate came up meanwhile: the room re-issues a live admission
      // (a few times: an API that refuses every token the room signs is a fault, not a wait)
      schedule(poll, 1000);
      return;
    }
    fail(code || (body && body.status) || `HTTP ${res.status}`);
  }

  async function checkIssued() {
    let r;
    try {
      r = await call('GET', `${issuances()}/me`);
    } catch (_) {
      later('offline', checkIssued, OFFLINE_RETRY_MS);
      return;
    }
    s.retry = null;
    const { res, body } = r;
    if (res.status === 200 && body && body.status === 'ISSUED') {
      finish('ISSUED');
      return;
    }
    if (res.status === 503) {
      later('busy', checkIssued, retryAfterMs(res));
      return;
    }
    if (res.status === 401) {
      signedOut();
      return;
    }
    if (res.status === 200 && ++s.statusChecks < STATUS_CHECKS) {
      setState('PENDING');
      schedule(checkIssued, Math.min(5000, 1000 * s.statusChecks));
      return;
    }
    fail(body && body.status ? `issuance ${body.status}` : `HTTP ${res.status}`);
  }

  function finish(state) {
    cancel();
    s.position = null;
    s.etaAt = null;
    setState(state);
  }
  function fail(code) {
    cancel();
    s.errorCode = code;
    setState('ERROR');
  }
  function signedOut() {
    cancel();
    s.token = '';
    safeSet(sessionStorage, 'room.token', '');
    setState('SIGNED_OUT');
    el.token.focus();
  }

  // ---- start ----------------------------------------------------------------------------------
  function start(token) {
    s.token = token.trim();
    s.position = null;
    s.announced = null;
    s.firstPosition = null;
    s.etaAt = null;
    s.errorCode = null;
    s.entryRefusals = 0;
    safeSet(sessionStorage, 'room.token', s.token);
    join();
  }

  el.signin.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (el.token.value.trim()) start(el.token.value);
  });
  el.again.addEventListener('click', () => start(s.token));
  el.lang.addEventListener('click', () => {
    lang = lang === 'ko' ? 'en' : 'ko';
    safeSet(localStorage, 'room.lang', lang);
    render();
  });
  // A tab that wakes (shown again, resumed, back online, restored from the back-forward cache) runs an
  // overdue call at once instead of waiting for its throttled timer.
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) tick();
  });
  document.addEventListener('resume', tick);
  window.addEventListener('online', tick);
  window.addEventListener('pageshow', tick);
  window.setInterval(tick, 1000);

  (async function boot() {
    await loadConfig();
    lang = pickLanguage();
    brand();
    const coupon =
      params.get('coupon') ||
      (config.couponId !== null && config.couponId !== undefined ? String(config.couponId) : '');
    s.coupon = /^[1-9][0-9]{0,18}$/.test(coupon) ? coupon : null;
    // a token in the address (QA, or a sign-in that redirects here) is taken and removed from it
    const fromUrl = params.get('token');
    if (fromUrl !== null) {
      params.delete('token');
      const rest = params.toString();
      window.history.replaceState(null, '', window.location.pathname + (rest ? `?${rest}` : ''));
    }
    const token = fromUrl || safeGet(sessionStorage, 'room.token') || '';
    if (!s.coupon) {
      setState('NO_EVENT');
      return;
    }
    if (token) {
      start(token);
      return;
    }
    setState('SIGN_IN');
    el.token.focus();
  })();
})();
