// The sign-in page: posts the token as JSON to /v1/session (the answer sets the HttpOnly session cookie), then goes
// on to the page asked for. The token is kept nowhere by the page. A page whose session ended while it was open sent
// the browser here with the reason (Allot.takeEndedReason), said under the form. Allot.request (dashboard.js) says so
// when the service does not answer.
'use strict';
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
  const next = new URLSearchParams(location.search).get('next');
  // only a path on this site (never //host or a scheme), so the page cannot be used to send people elsewhere
  location.assign(next && /^\/(?![\/\\])/.test(next) ? next : '/queue');
});
