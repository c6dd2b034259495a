// The console's sign-in form: exchanges an access key id and secret for a session cookie (HttpOnly).
const form = document.getElementById('login');
const error = document.getElementById('login-error');

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  error.hidden = true;
  const data = new FormData(form);
  const res = await fetch('/console/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accessKeyId: data.get('accessKeyId'), secretAccessKey: data.get('secretAccessKey') }),
  }).catch((e) => ({ ok: false, json: async () => ({ message: `The node did not answer: ${e.message}` }) }));
  if (res.ok) {
    location.reload();
    return;
  }
  const body = await res.json().catch(() => ({}));
  error.textContent = body.message || `Sign-in failed (${res.status})`;
  error.hidden = false;
  form.secretAccessKey.value = '';
  form.secretAccessKey.focus();
});
