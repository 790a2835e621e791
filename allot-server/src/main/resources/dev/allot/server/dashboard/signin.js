// The sign-in page: posts the token as JSON to /v1/session (the answer sets the HttpOnly session cookie), then goes
// on to the page asked for. The token is kept nowhere by the page. A page whose session ended while it was open sent
// the browser here with the reason (Allot.takeEndedReason), said under the form. Allot.request (dashboard.js) says so
// when the service does not answer. A browser already signed in is told who it is signed in as, with the way on to
// the dashboard and Sign out, rather than the form again.
'use strict';
/** Where to go once signed in: the page asked for, only a path on this site (never //host or a scheme), else the queue. */
function nextPage() {
  const next = new URLSearchParams(location.search).get('next');
  return next && /^\/(?![\/\\])/.test(next) ? next : '/queue';
}
// (asking logs the API's 401 in the browser's console when no one is signed in, as every page does before it sends
// the browser here)
Allot.currentSession().then(session => {
  if (session === null) {
    return; // not signed in: the form
  }
  document.getElementById('signin').hidden = true;
  document.getElementById('signed-in').hidden = false;
  document.getElementById('signed-in-as').append('You are signed in as ', Allot.el('strong', {}, session.user),
    session.role === 'admin' ? ' (administrator).' : '.');
  document.getElementById('to-dashboard').setAttribute('href', nextPage());
  document.getElementById('signed-in-signout').addEventListener('click', () => Allot.signOut().catch(e => {
    const error = document.getElementById('signed-in-error');
    error.hidden = false;
    error.className = 'error';
    error.textContent = 'Not signed out: ' + e.message;
  }));
}, () => { /* no answer about the session: the form, which says so when used */ })
  .finally(() => { document.body.dataset.sessionChecked = 'true'; });
{
  // sent here by a page whose session ended while it was open: say why, so signing in again is not a surprise
  const why = Allot.takeEndedReason();
  if (why) {
    const notice = document.getElementById('error');
    notice.hidden = false;
    notice.className = 'error';
    notice.textContent = 'Signed out: ' + why + '.';
  }
}
document.getElementById('signin').addEventListener('submit', async event => {
  event.preventDefault();
  const input = document.getElementById('token');
  const error = document.getElementById('error');
  error.hidden = true;
  let r;
  try {
    r = await Allot.request('/v1/session', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: input.value.trim() }),
    });
  } catch (e) {
    error.hidden = false;
    error.className = 'error';
    error.textContent = 'Not signed in: ' + e.message + '.';
    return; // the token stays in the field, to sign in once the service answers
  }
  input.value = '';
  if (!r.ok) {
    const body = await r.json().catch(() => ({}));
    error.hidden = false;
    error.className = 'error';
    error.textContent = 'Not signed in: ' + (body.error || r.status);
    return;
  }
  location.assign(nextPage());
});
