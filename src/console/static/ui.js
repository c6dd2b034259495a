// Shared helpers of the console's pages: DOM building, AWS JSON 1.0 calls, crumbs, toasts, the confirmation dialog.

export const app = document.getElementById('app');
const crumbs = document.getElementById('crumbs');
export const enc = encodeURIComponent;

export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) e.append(c);
  return e;
}


/** One AWS JSON 1.0 request (POST / with X-Amz-Target), as any SDK sends it; `service` is the target prefix. */
export async function aws(service, action, input) {
  const res = await fetch('/', {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `${service}.${action}` },
    body: JSON.stringify(input),
  });
  const body = await res.json().catch(() => ({}));
  // Signed in with an access key and the session ended (expired, key changed): back to the sign-in form.
  if (res.status === 403 && body.__type === 'MissingAuthenticationTokenException') location.reload();
  if (!res.ok) {
    const err = new Error(body.message || `${res.status} ${res.statusText}`);
    err.name = body.__type || 'Error';
    throw err;
  }
  return body;
}

/** One SWF operation. */
export const swf = (action, input) => aws('SimpleWorkflowService', action, input);
/** One Step Functions operation. */
export const sfn = (action, input) => aws('AWSStepFunctions', action, input);

/** Every page of an SWF list. */
export async function allPages(action, input, key) {
  const out = [];
  let token;
  do {
    const r = await swf(action, { ...input, nextPageToken: token });
    out.push(...(r[key] ?? []));
    token = r.nextPageToken;
  } while (token);
  return out;
}

export const dateTime = (sec) => (sec === undefined || sec === null ? '' : new Date(sec * 1000).toLocaleString([], { hour12: false }));

export function statusBadge(status, closeStatus) {
  const s = status === 'OPEN' ? 'OPEN' : closeStatus || status;
  return h('span', { class: `badge ${String(s).toLowerCase()}`, 'data-status': s }, s);
}

export function setCrumbs(...items) {
  crumbs.replaceChildren(...items.flatMap((it, i) => [...(i ? [h('span', { class: 'sep' }, '›')] : []), it.href ? h('a', { href: it.href }, it.text) : h('span', {}, it.text)]));
  document.title = `${items.map((i) => i.text).reverse().join(' · ')} — ActorFlow`;
}

export function showError(where, err) {
  where.replaceChildren(h('div', { class: 'error', role: 'alert' }, `${err.name ?? 'Error'}: ${err.message ?? err}`));
}

let toastTimer;
export function toast(text, kind = 'info') {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.className = `toast show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = 'toast'; }, 4000);
}

// ---------------------------------------------------------------- confirmation dialog

/**
 * Asks for confirmation in a modal dialog; `fields` are inputs shown in it. Resolves to the
 * fields' values when confirmed, undefined when dismissed.
 */
export function confirmDialog({ title, message, confirm, danger, fields = [] }) {
  const dlg = document.getElementById('confirm');
  const inputs = fields.map((f) => h(f.multiline ? 'textarea' : 'input', {
    name: f.name, id: `dlg-${f.name}`, placeholder: f.placeholder ?? '', required: f.required, rows: f.multiline ? 3 : undefined, value: f.multiline ? undefined : f.value ?? '',
  }));
  dlg.replaceChildren(h('form', { method: 'dialog', class: 'dialog-form' },
    h('h2', {}, title),
    h('p', {}, message),
    ...fields.map((f, i) => h('label', { for: `dlg-${f.name}` }, f.label, inputs[i])),
    h('div', { class: 'dialog-buttons' },
      h('button', { value: 'cancel', type: 'submit', formnovalidate: true, class: 'secondary', 'data-testid': 'dialog-cancel' }, 'Cancel'),
      h('button', { value: 'confirm', type: 'submit', class: danger ? 'danger' : 'primary', 'data-testid': 'dialog-confirm' }, confirm))));
  return new Promise((resolve) => {
    dlg.addEventListener('close', () => {
      resolve(dlg.returnValue === 'confirm' ? Object.fromEntries(fields.map((f, i) => [f.name, inputs[i].value])) : undefined);
    }, { once: true });
    dlg.returnValue = '';
    dlg.showModal();
    (inputs[0] ?? dlg.querySelector('[data-testid=dialog-cancel]')).focus();
  });
}
