// Signed-in console (access keys configured): the key in the header and a sign-out button.
const res = await fetch('/console/api/session');
if (res.ok) {
  const s = await res.json();
  if (s.accessKeyId) {
    const box = document.createElement('div');
    box.className = 'session';
    box.dataset.accessKeyId = s.accessKeyId;
    box.textContent = `signed in as ${s.accessKeyId} `;
    const out = document.createElement('button');
    out.type = 'button';
    out.dataset.testid = 'sign-out';
    out.textContent = 'Sign out';
    out.addEventListener('click', async () => {
      await fetch('/console/session/logout', { method: 'POST' });
      location.assign('/console/');
    });
    box.append(out);
    document.querySelector('header.top').append(box);
  }
}
