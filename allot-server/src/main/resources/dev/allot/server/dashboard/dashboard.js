// Shared by every dashboard page: the signed-in session, calls to the /v1 API, the navigation bar, and small
// helpers that build DOM nodes. Data from the API is only ever inserted as text (textContent), never as markup.
'use strict';

const Allot = (() => {
  let session = null;
  /** sessionStorage key: why the last page of this tab was sent to sign in (read once by the sign-in page). */
  const ENDED_KEY = 'allot.sessionEnded';

  /**
   * fetch() for this site, whose failures say what happened: a request that gets no answer (the service stopped or
   * restarting, the network down) rejects with an Error saying so ({@code unreachable} set) rather than the browser's
   * bare "Failed to fetch".
   */
  async function request(path, init) {
    try {
      return await fetch(path, Object.assign({ credentials: 'same-origin' }, init || {}));
    } catch (x) {
      const method = ((init && init.method) || 'GET').toUpperCase();
      const e = new Error('no answer from the Allot service at ' + location.origin + ' to ' + method + ' ' + path
        + ': it is stopped or restarting, or the network to it is down');
      e.unreachable = true;
      throw e;
    }
  }

  /** The signed-in session ({user, role, csrfToken}); sends the browser to the sign-in page without one. */
  async function signedIn() {
    const s = await currentSession();
    if (s === null) {
      location.assign('/signin?next=' + encodeURIComponent(location.pathname + location.search));
      throw new Error('not signed in');
    }
    return s;
  }

  /** The signed-in session, or null when this browser is not signed in (the sign-in page asks, and stays). */
  async function currentSession() {
    const r = await request('/v1/session');
    if (r.status === 401) {
      return null;
    }
    if (!r.ok) {
      throw new Error('GET /v1/session answered ' + r.status);
    }
    session = await r.json();
    return session;
  }

  /**
   * Calls the API with the session cookie; a request that changes state carries the CSRF token. Resolves to the
   * parsed JSON (null for an empty answer); rejects with an Error carrying the API's message and status.
   */
  async function api(path, options = {}) {
    const method = (options.method || 'GET').toUpperCase();
    const headers = Object.assign({}, options.headers || {});
    if (method !== 'GET' && method !== 'HEAD') {
      headers['X-CSRF-Token'] = session ? session.csrfToken : '';
    }
    let body = options.body;
    if (body !== undefined && typeof body !== 'string') {
      body = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
    const r = await request(path, { method, headers, body });
    if (r.status === 401) {
      // the session ended under an open page: the sign-in page says so (sessionStorage: this tab only, never the
      // URL) rather than appearing out of nowhere. In the page's words: the API's are for API clients (a browser
      // signed out in another tab has no cookie left, and the API answers "no Authorization header")
      sessionStorage.setItem(ENDED_KEY, 'the dashboard session ended while the page was open (signed out in another'
        + ' tab, the token expired or was revoked, or the service restarted); sign in again to go on');
      location.assign('/signin?next=' + encodeURIComponent(location.pathname + location.search));
      throw new Error('signed out');
    }
    const text = await r.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch (x) {
      // not the API's JSON: a proxy in front of a stopped service (502, 503, 504) or some other server answered
      const e = new Error(method + ' ' + path + ' answered ' + r.status + ' with a page that is not the Allot API\'s'
        + (r.status >= 502 && r.status <= 504 ? ': the Allot service behind ' + location.origin
          + ' is stopped or restarting' : ''));
      e.status = r.status;
      e.unreachable = r.status >= 502 && r.status <= 504;
      throw e;
    }
    if (!r.ok) {
      const e = new Error(json && json.error ? json.error : method + ' ' + path + ' answered ' + r.status);
      e.status = r.status;
      e.hint = json && json.hint;
      throw e;
    }
    return json;
  }

  /** Builds an element: attributes (class, href, data-*, on*) and children (nodes or text). */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) {
        continue;
      }
      if (k.startsWith('on') && typeof v === 'function') {
        e.addEventListener(k.substring(2), v);
      } else if (k === 'class') {
        e.className = v;
      } else {
        e.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) {
        continue;
      }
      e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  /** The page's frame: the navigation bar (the current page marked) and who is signed in, with sign-out. */
  function frame(active) {
    const pages = [['Queue', '/queue'], ['Campaigns', '/campaigns'], ['Allocations', '/allocations'],
      ['Timeline', '/timeline'], ['Nodes', '/nodes']];
    const nav = el('nav', { class: 'top' },
      el('a', { class: 'brand', href: '/queue' }, 'Allot'),
      pages.map(([name, href]) => el('a', { href, class: name === active ? 'active' : null }, name)),
      el('span', { class: 'spacer' }),
      el('span', { id: 'whoami' }, session.user + ' (' + roleOf() + ')'),
      el('button', { id: 'signout', type: 'button', onclick: () => signOut().catch(fail) }, 'Sign out'));
    document.body.prepend(nav);
  }

  async function signOut() {
    await api('/v1/session', { method: 'DELETE' });
    location.assign('/signin');
  }

  /** admin, manager (manages some allocation), or member; set by the pages that read the tree. */
  let managerOf = [];
  function setTree(allocations) {
    managerOf = allocations.filter(a => a.managers.includes(session.user)).map(a => a.path);
  }
  function roleOf() {
    return session.role === 'admin' ? 'admin' : managerOf.length ? 'manager' : 'member';
  }
  /** Whether the signed-in user may edit this allocation: as the API's Permissions.mayEditAllocation. */
  function mayEdit(path) {
    if (session.role === 'admin') {
      return true;
    }
    const slash = path.lastIndexOf('/');
    return slash > 0 && managerOf.some(m => path.substring(0, slash) === m || path.startsWith(m + '/'));
  }

  /**
   * A Cancel button with its confirmation, built once into {@code box} (the page shows or hides the box as what it
   * shows may be cancelled or not). The confirmation is part of the page, not a browser dialog: it says what
   * cancelling does, {@code question}, and nothing is cancelled until "Yes, cancel it". {@code run} makes the call and
   * shows the outcome; its error is shown at the top of the page. Who sees the box is the page's choice from the API's
   * own answer; the API still refuses anyone else.
   */
  function cancelAction(box, what, question, run) {
    const dialog = el('div', { id: 'cancel-confirm', class: 'note confirm', role: 'alertdialog', hidden: true,
      'aria-labelledby': 'cancel-question' });
    const ask = el('button', { id: 'cancel', type: 'button', class: 'danger' }, 'Cancel ' + what);
    const yes = el('button', { id: 'cancel-yes', type: 'button', class: 'danger' }, 'Yes, cancel it');
    const no = el('button', { id: 'cancel-no', type: 'button', class: 'secondary' }, 'Keep it');
    dialog.append(el('p', { id: 'cancel-question' }, question), yes, ' ', no);
    const close = () => { dialog.hidden = true; ask.hidden = false; };
    ask.addEventListener('click', () => { ask.hidden = true; dialog.hidden = false; no.focus(); });
    no.addEventListener('click', close);
    yes.addEventListener('click', async () => {
      yes.disabled = no.disabled = true;
      try {
        await run();
      } catch (e) {
        fail(e);
      } finally {
        yes.disabled = no.disabled = false;
        close();
      }
    });
    box.textContent = '';
    box.append(ask, dialog);
  }

  /** Shows an error at the top of the page. */
  function fail(e) {
    const box = document.getElementById('error') || document.body.appendChild(el('div', { id: 'error' }));
    box.className = 'error';
    box.textContent = e.message + (e.hint ? ' (' + e.hint + ')' : '');
  }

  const fmt = {
    /** A number with a fixed count of decimals and thousands separators. */
    num: (x, d = 0) => x === null || x === undefined ? '\u2013'
      : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }),
    pct: (x, d = 1) => x === null || x === undefined ? '\u2013' : fmt.num(x * 100, d) + '%',
    gpuHours: (x, d = 1) => fmt.num(x / 3600, d),
    time: iso => iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '\u2013',
    /** A duration in seconds, two units at most, as the report writes it (format.js): 3d 4h, 2h 05m, 12m 30s, 45s. */
    dur: s => {
      if (s === null || s === undefined) {
        return '\u2013';
      }
      s = Math.round(s);
      const [unit, next, big, small] = s < 60 ? [1, 0, 's', ''] : s < 3600 ? [60, 1, 'm', 's']
        : s < 86400 ? [3600, 60, 'h', 'm'] : [86400, 3600, 'd', 'h'];
      const rest = next ? Math.floor(s % unit / next) : 0;
      return Math.floor(s / unit) + big + (rest ? ' ' + (big === 'd' ? rest : String(rest).padStart(2, '0')) + small : '');
    },
  };

  /**
   * Units done of a total as an accessible bar (a progress element, labelled for screen readers) and its text,
   * "40 of 100 (40%)". {@code label} names what progresses, e.g. "shard 3".
   */
  function progress(done, total, label) {
    const units = fmt.num(done) + ' of ' + fmt.num(total);
    const share = fmt.pct(total > 0 ? Math.min(1, done / total) : 0, 0);
    return el('span', { class: 'progress' },
      el('progress', { max: total, value: Math.min(done, total), 'aria-label': label + ': ' + units + ' units done' }),
      el('span', { class: 'progress-text' }, ' ' + units + ' (' + share + ')'));
  }

  /**
   * Keeps a page live by polling: calls {@code reload} every refresh interval while the tab is visible, and at once
   * when it becomes visible again; a failed reload shows its error and the next one retries. The interval is 15 s,
   * or the browser's own preference {@code localStorage['allot.refreshMs']} (at least 1 s). Returns a function that
   * stops it. Polling rather than server-sent events: every page reads the same /v1 API that scripts use, and a
   * reload is one request per page.
   */
  function live(reload) {
    const preferred = Number(localStorage.getItem('allot.refreshMs'));
    const ms = preferred >= 1000 ? preferred : 15000;
    let running = false;
    let shownAt = new Date();
    const tick = async () => {
      if (running || document.hidden) {
        return;
      }
      running = true;
      try {
        await reload();
        shownAt = new Date();
        const box = document.getElementById('error');
        if (box && box.dataset.live) {
          box.remove();
        }
      } catch (e) {
        fail(e);
        const box = document.getElementById('error');
        box.dataset.live = 'true';
        // what is shown below no longer changes: say since when, and that the page keeps trying
        box.textContent = box.textContent.replace(/\.?$/, '.') + ' The page shows what it had at ' + fmt.time(shownAt.toISOString()) + ' UTC and tries'
          + ' again every ' + fmt.dur(ms / 1000) + '.';
      } finally {
        running = false;
      }
    };
    const timer = setInterval(tick, ms);
    const onVisible = () => { if (!document.hidden) { tick(); } };
    document.addEventListener('visibilitychange', onVisible);
    return () => { clearInterval(timer); document.removeEventListener('visibilitychange', onVisible); };
  }

  /** Why this tab was sent to sign in while a page was open, once (null when it was not). */
  function takeEndedReason() {
    const why = sessionStorage.getItem(ENDED_KEY);
    sessionStorage.removeItem(ENDED_KEY);
    return why;
  }

  return { request, signedIn, currentSession, signOut, takeEndedReason, api, el, frame, setTree, roleOf, mayEdit,
    cancelAction, fail, live, fmt, progress, get session() { return session; } };
})();
