// The splitguard console: a hash-routed single-page app over /console/api.
// Every value from the server reaches the page as a text node or a property
// (h() below); no markup is ever built from data.
import { barChart, columnChart, intervalChart } from './charts.js';

const state = { me: null, csrf: '', timers: [], returnTo: '' };
const main = document.getElementById('main');

// --- DOM --------------------------------------------------------------------

const PROPS = new Set(['value', 'checked', 'selected', 'readOnly']);
let uid = 0;

/** An element: h('a', {href, class, onclick}, 'text', child, ...). Strings become text nodes. */
function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (PROPS.has(k)) el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

function toast(text) {
  const t = document.getElementById('toast');
  t.textContent = text;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.textContent = ''; }, 4000);
}

const time = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—');
function ago(iso) {
  if (!iso) return '';
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 90) return 'just now';
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 172800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}
const when = (iso) => (iso ? `${time(iso)} (${ago(iso)})` : 'never');

/** A labelled form control with room for its error message. */
function field(labelText, control, hint) {
  if (!control.id) control.id = `f${++uid}`;
  const described = [];
  const parts = [h('label', { for: control.id }, labelText), control];
  if (hint) {
    parts.push(h('p', { class: 'hint', id: `${control.id}-hint` }, hint));
    described.push(`${control.id}-hint`);
  }
  parts.push(h('p', { class: 'field-error', id: `${control.id}-err`, hidden: true }));
  described.push(`${control.id}-err`);
  control.setAttribute('aria-describedby', described.join(' '));
  return h('div', { class: 'field' }, parts);
}

function select(name, options, value) {
  return h('select', { name }, options.map(([v, label]) => h('option', { value: v, selected: v === value }, label)));
}

function copyButton(text, what) {
  const b = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Copy ${what}` }, 'Copy');
  b.addEventListener('click', async () => {
    let ok = true;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      ok = false;
    }
    b.textContent = ok ? 'Copied' : 'Select and copy';
    setTimeout(() => { b.textContent = 'Copy'; }, 2000);
  });
  return b;
}

/** A yes/no question in a modal dialog; resolves true when confirmed. Escape cancels. */
function confirmDialog(question, action) {
  return new Promise((resolve) => {
    const text = h('p', { id: `q${++uid}` }, question);
    const d = h('dialog', { 'aria-labelledby': text.id });
    const done = (answer) => { d.close(); d.remove(); resolve(answer); };
    d.append(text, h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', onclick: () => done(false) }, 'Cancel'),
      h('button', { type: 'button', class: 'danger', onclick: () => done(true) }, action)));
    d.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.append(d);
    d.showModal();
  });
}

// --- API --------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `the server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? 'http_error';
    this.field = body?.field ?? null;
  }
}

/** `extra`: request headers of the call's own (If-Match). */
async function api(method, path, body, extra = {}) {
  const headers = { ...extra };
  if (method !== 'GET') headers['X-CSRF-Token'] = state.csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`/console/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (res.status === 401 && path !== '/session/login') {
    // Once per ended session: a page's other calls answered 401 too (the
    // account page makes two at once) must not draw the sign-in again
    // without the message the first one put there.
    if (state.me || !document.getElementById('login-title')) showLogin(state.me ? 'Your session has ended. Please sign in again.' : '');
    throw new ApiError(401, data);
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

/** Puts an API error next to the field it names, or at the top of the form. */
function showError(form, err) {
  // A list entry's own control (variants[2].url) if the form has one, else the list's.
  const name = err.field ? err.field.replace(/\[.*$/, '') : '';
  const control = (err.field && form.elements.namedItem(err.field)) || (name && form.elements.namedItem(name));
  if (control instanceof HTMLElement && control.id) {
    control.setAttribute('aria-invalid', 'true');
    const msg = document.getElementById(`${control.id}-err`);
    msg.textContent = err.message;
    msg.hidden = false;
    control.focus();
    return;
  }
  let box = form.querySelector('.form-error');
  if (!box) {
    box = h('p', { class: 'form-error', role: 'alert' });
    form.prepend(box);
  }
  box.textContent = err.message;
}

function clearErrors(form) {
  form.querySelectorAll('[aria-invalid]').forEach((c) => c.removeAttribute('aria-invalid'));
  form.querySelectorAll('.field-error').forEach((m) => { m.hidden = true; m.textContent = ''; });
  form.querySelectorAll('.form-error').forEach((m) => m.remove());
}

/** A form whose submit runs `action(form)`, with errors shown in place. */
function form(props, children, action) {
  const f = h('form', { novalidate: true, ...props }, children);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearErrors(f);
    const button = f.querySelector('button[type="submit"]');
    if (button) button.disabled = true;
    try {
      await action(f);
    } catch (err) {
      // An ended session has already brought up the login page.
      if (err.code !== 'session_invalid') showError(f, err);
    } finally {
      if (button) button.disabled = false;
    }
  });
  return f;
}

// --- pages ------------------------------------------------------------------

const PAGES = [
  { path: /^\/keys$/, nav: 'API keys', render: keysPage },
  { path: /^\/routes$/, nav: 'Routes', render: routesPage },
  { path: /^\/routes\/new$/, render: newRoutePage },
  { path: /^\/routes\/([0-9]+)$/, render: routePage },
  { path: /^\/ip$/, nav: 'IP check', render: ipPage },
  { path: /^\/database$/, nav: 'Database', render: databasePage },
  { path: /^\/admin\/blacklist$/, nav: 'ASN blacklist', admin: true, render: blacklistPage },
  { path: /^\/admin\/accounts$/, nav: 'Accounts', admin: true, render: accountsPage },
];
const NAV_PATHS = { 'API keys': '/keys', Routes: '/routes', 'IP check': '/ip', Database: '/database', 'ASN blacklist': '/admin/blacklist', Accounts: '/admin/accounts' };

function currentRoute() {
  const raw = window.location.hash.startsWith('#/') ? window.location.hash.slice(1) : '/routes';
  const [path, query = ''] = raw.split('?');
  return { path, query: new URLSearchParams(query) };
}

function go(path) {
  if (window.location.hash === `#${path}`) render({ focus: true });
  else window.location.hash = path;
}

function stopTimers() {
  state.timers.forEach(clearInterval);
  state.timers = [];
}

// A page's own refreshes (a route's figures every second, the database's
// every two) are requests like any other: they kept the session alive, so a
// console left open on an unattended screen never reached the idle limit
// and stayed signed in for the session's 12 hours. They pause once the user
// has done nothing (a key, the pointer, the wheel) for half that limit, so
// the session ends within 1.5 times the limit of the last action; the next
// action brings them back, or the sign-in.
let lastInput = Date.now();
for (const type of ['keydown', 'pointerdown', 'pointermove', 'wheel']) {
  window.addEventListener(type, () => { lastInput = Date.now(); }, { capture: true, passive: true });
}
const unattended = () => state.me !== null && Date.now() - lastInput > (state.me.idle_minutes * 60_000) / 2;

/** Runs `fn` every `ms` while the user is there (see above). */
function every(ms, fn) {
  state.timers.push(setInterval(() => {
    if (!unattended()) fn();
  }, ms));
}

function renderChrome() {
  const top = document.getElementById('top');
  top.hidden = !state.me;
  if (!state.me) return;
  document.getElementById('who').textContent = `${state.me.email} · ${state.me.account.name}`;
  const nav = document.getElementById('nav');
  nav.replaceChildren(...PAGES.filter((p) => p.nav && (!p.admin || state.me.admin)).map((p) => h('li', {}, h('a', { href: `#${NAV_PATHS[p.nav]}` }, p.nav))));
}

function markNav(path) {
  for (const a of document.querySelectorAll('#nav a')) {
    const target = a.getAttribute('href').slice(1);
    if (path === target || path.startsWith(`${target}/`)) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

/** Draws the page the hash names; `focus` moves keyboard focus to it (after a navigation). */
async function render({ focus = false } = {}) {
  stopTimers();
  if (!state.me) return;
  const { path, query } = currentRoute();
  const page = PAGES.find((p) => p.path.test(path) && (!p.admin || state.me.admin));
  markNav(path);
  const view = h('div', { class: 'page' });
  main.replaceChildren(view);
  if (!page) {
    view.append(h('h1', {}, 'Not found'), h('p', {}, 'There is no such page. ', h('a', { href: '#/routes' }, 'Go to routes')));
    document.title = 'Not found · splitguard';
    return;
  }
  try {
    await page.render(view, { match: page.path.exec(path), query });
  } catch (err) {
    if (err.status === 401) return;
    view.append(h('p', { class: 'form-error', role: 'alert' }, err.message));
  }
  const heading = view.querySelector('h1');
  document.title = `${heading ? heading.textContent : 'Console'} · splitguard`;
  if (focus) main.focus({ preventScroll: true });
}

// --- login --------------------------------------------------------------------

function showLogin(message) {
  stopTimers();
  state.me = null;
  state.csrf = '';
  if (window.location.hash.startsWith('#/')) state.returnTo = window.location.hash;
  renderChrome();
  const email = h('input', { name: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const f = form({ 'aria-labelledby': 'login-title' }, [
    message ? h('p', { class: 'notice', role: 'status' }, message) : null,
    field('Email', email),
    field('Password', password),
    h('button', { type: 'submit' }, 'Sign in'),
  ], async () => {
    const me = await api('POST', '/session/login', { email: email.value, password: password.value });
    signedIn(me);
  });
  main.replaceChildren(h('section', { class: 'panel login' }, h('h1', { id: 'login-title' }, 'Sign in to splitguard'), f));
  document.title = 'Sign in · splitguard';
  email.focus();
}

function signedIn(me) {
  state.me = me;
  state.csrf = me.csrf_token;
  renderChrome();
  const target = state.returnTo || '#/routes';
  state.returnTo = '';
  if (window.location.hash === target) render({ focus: true });
  else window.location.hash = target;
}

/**
 * A POST to the session the cookie names, which need not be the one this
 * page signed in with: after a sign-out and sign-in (or a password change)
 * in another tab it is a new one, whose CSRF token the page reads before
 * asking again.
 */
async function toCookieSession(path, body) {
  try {
    return await api('POST', path, body);
  } catch (err) {
    if (err.code !== 'csrf_failed') throw err;
    state.csrf = (await api('GET', '/session')).csrf_token;
    return api('POST', path, body);
  }
}

async function logout() {
  document.getElementById('logout-error')?.remove();
  try {
    await toCookieSession('/session/logout');
  } catch (err) {
    // 401: there is no session left to end. Anything else: the session may
    // still be live, and the page must not say otherwise.
    if (err.status !== 401) {
      main.prepend(h('p', { class: 'form-error', role: 'alert', id: 'logout-error' }, `Signing out failed (${err.message}): you are still signed in. Try again.`));
      return;
    }
  }
  state.returnTo = '';
  window.location.hash = '';
  showLogin('You have signed out.');
}

// --- API keys and account ---------------------------------------------------------

async function keysPage(view) {
  // The session's account is the record; /v1/account adds the conversions it stores, read from the store.
  const [me, account] = await Promise.all([api('GET', '/session'), api('GET', '/v1/account')]);
  state.me = me;
  const name = h('input', { name: 'name', value: account.name, maxlength: 200 });
  const rename = form({}, [h('div', { class: 'row' }, field('Account name', name), h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Save name')))], async () => {
    const a = await api('PUT', '/v1/account', { name: name.value });
    state.me.account = a;
    renderChrome();
    toast('Account name saved');
  });

  const current = h('input', { name: 'current_password', type: 'password', autocomplete: 'current-password' });
  const next = h('input', { name: 'new_password', type: 'password', autocomplete: 'new-password', minlength: 10 });
  const repeat = h('input', { name: 'repeat_password', type: 'password', autocomplete: 'new-password' });
  const password = form({ 'aria-labelledby': 'password-h' }, [
    h('h3', { id: 'password-h', class: 'subhead' }, 'Change password'),
    // For password managers: the login the new password belongs to.
    h('input', { type: 'text', name: 'username', autocomplete: 'username', 'aria-label': 'Login', value: me.email, hidden: true, readonly: true, tabindex: -1 }),
    h('div', { class: 'row' }, field('Current password', current), field('New password (10 or more characters)', next), field('Repeat the new password', repeat)),
    h('button', { type: 'submit' }, 'Change password'),
  ], async () => {
    if (next.value !== repeat.value) throw Object.assign(new Error('the two new passwords differ'), { field: 'repeat_password' });
    const changed = await toCookieSession('/session/password', { current_password: current.value, new_password: next.value });
    // A new session for this browser: its CSRF token too.
    state.me = changed;
    state.csrf = changed.csrf_token;
    for (const input of [current, next, repeat]) input.value = '';
    const others = changed.sessions_ended - 1;
    toast(others > 0 ? `Password changed; ${others} other ${others === 1 ? 'session' : 'sessions'} signed out` : 'Password changed');
  });

  const everywhere = form({}, [
    h('p', { class: 'hint' }, 'Ends every session of this login, in every browser and on every device, this one included: for a lost device, or a session someone else may hold. API keys stay: revoke any below that you did not make.'),
    h('button', { type: 'submit', class: 'secondary' }, 'Sign out everywhere'),
  ], async () => {
    if (!(await confirmDialog('Sign out of every browser and device, this one included?', 'Sign out everywhere'))) return;
    const { ended } = await toCookieSession('/session/logout-everywhere');
    state.returnTo = '';
    window.location.hash = '';
    showLogin(`You have signed out everywhere (${ended} ${ended === 1 ? 'session' : 'sessions'} ended).`);
  });

  const reveal = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  const keyName = h('input', { name: 'name', maxlength: 100, placeholder: 'e.g. production server' });
  const create = form({}, [h('div', { class: 'row' }, field('New key name', keyName), h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Create key')))], async () => {
    const k = await api('POST', '/keys', { name: keyName.value });
    keyName.value = '';
    showSecret(reveal, k);
    await loadKeys(list, reveal);
  });

  view.append(
    h('h1', {}, 'Account and API keys'),
    h('section', { class: 'panel', 'aria-labelledby': 'acct-h' },
      h('h2', { id: 'acct-h' }, 'Account'),
      h('dl', { class: 'facts' },
        h('dt', {}, 'Account'), h('dd', {}, `${account.name} (id ${account.id})`),
        h('dt', {}, 'Routes created'), h('dd', {}, `${account.routes_created} of ${account.quota} (${account.quota_remaining} left)`),
        h('dt', {}, 'Conversions stored'), h('dd', {}, conversionUsage(account)),
        h('dt', {}, 'Signed in as'), h('dd', {}, me.email, me.admin ? ' (administrator)' : '')),
      rename),
    h('section', { class: 'panel', 'aria-labelledby': 'sessions-h' },
      h('h2', { id: 'sessions-h' }, 'Password and sessions'),
      password,
      h('h3', { class: 'subhead' }, 'Sessions'),
      everywhere),
    h('section', { class: 'panel', 'aria-labelledby': 'keys-h' },
      h('h2', { id: 'keys-h' }, 'API keys'),
      h('p', { class: 'hint' }, 'Keys authenticate /v1 requests as "Authorization: Bearer <key>". Keep them out of front-end code.'),
      create, reveal, list),
  );
  await loadKeys(list, reveal);
}

/** A count as the console writes it ("10,000,000"), or a dash for one not known (null or absent). */
const countText = (n) => (n === null || n === undefined ? '—' : n.toLocaleString('en'));

/** "3 of 10,000,000 (9,999,997 left)"; no limit when conversion_quota is null; a dash when the count cannot be read now (cluster, PostgreSQL away). */
function conversionUsage(account) {
  const stored = account.conversions_stored;
  const quota = account.conversion_quota;
  if (quota === null) return `${countText(stored)} (no limit)`;
  if (stored === null) return `— of ${countText(quota)}`;
  return `${countText(stored)} of ${countText(quota)} (${countText(Math.max(0, quota - stored))} left)`;
}

function showSecret(box, k, done = 'created') {
  const input = h('input', { readOnly: true, value: k.api_key, 'aria-label': 'The new API key', class: 'mono' });
  box.replaceChildren(h('div', { class: 'notice', role: 'alert' },
    h('p', {}, h('strong', {}, `Key "${k.name}" ${done}. Copy it now: it is shown only once.`)),
    h('div', { class: 'secret' }, input, copyButton(k.api_key, 'the new API key')),
    h('button', { type: 'button', class: 'secondary small', onclick: () => box.replaceChildren() }, 'I have copied it')));
  input.focus();
  input.select();
}

async function loadKeys(list, reveal) {
  const { data } = await api('GET', '/keys');
  if (data.length === 0) {
    list.replaceChildren(h('p', { class: 'empty' }, 'No keys yet.'));
    return;
  }
  const row = (k) => {
    const actions = k.revoked_at ? [] : [
      h('button', { type: 'button', class: 'secondary small', onclick: async () => {
        if (!(await confirmDialog(`Reset key "${k.name}"? The current key stops working at once.`, 'Reset key'))) return;
        showSecret(reveal, await api('POST', `/keys/${encodeURIComponent(k.id)}/reset`), 'reset: the old key no longer works');
        await loadKeys(list, reveal);
      } }, 'Reset'),
      h('button', { type: 'button', class: 'danger small', onclick: async () => {
        if (!(await confirmDialog(`Revoke key "${k.name}"? Requests with it are refused at once.`, 'Revoke key'))) return;
        await api('DELETE', `/keys/${encodeURIComponent(k.id)}`);
        toast(`Key "${k.name}" revoked`);
        await loadKeys(list, reveal);
      } }, 'Revoke'),
    ];
    return h('tr', { 'data-key-id': k.id },
      h('td', { 'data-label': 'Name' }, k.name),
      h('td', { 'data-label': 'Key' }, h('code', {}, `${k.prefix}…`)),
      h('td', { 'data-label': 'Created' }, time(k.created_at)),
      h('td', { 'data-label': 'Last used', class: 'last-used' }, when(k.last_used_at)),
      h('td', { 'data-label': 'Status' }, k.revoked_at ? h('span', { class: 'badge revoked' }, 'revoked') : h('span', { class: 'badge active' }, 'active')),
      h('td', { 'data-label': 'Actions' }, h('div', { class: 'actions' }, actions)));
  };
  list.replaceChildren(h('table', { class: 'cards' },
    h('caption', { class: 'hint' }, 'Last use is recorded within 30 seconds.'),
    h('thead', {}, h('tr', {}, ['Name', 'Key', 'Created', 'Last used', 'Status', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, data.slice().reverse().map(row))));
}

// --- routes -------------------------------------------------------------------

// What each level intercepts, in short (docs/api.md, Levels, has the whole of it).
const LEVELS = [
  ['off', 'off: never intercept'],
  ['low', 'low: data-center and VPN networks, Tor exits, VPN servers, crawlers'],
  ['medium', 'medium: as low, plus cloud and hosting ranges, hosting lists and keywords'],
  ['high', 'high: as medium, plus weak keywords, CDNs, transit, private relays'],
];

/**
 * The rule_hits counters, in the order the redirect applies the rules: key,
 * label, bar class (x: an interception; b: a visitor let through).
 */
const RULES = [
  ['asn_blacklist', 'ASN blacklist', 'x'],
  ['range_feed', 'Range feed', 'x'],
  ['org_keyword', 'Org keyword', 'x'],
  ['vpn_proxy', 'VPN / proxy', 'x'],
  ['crawler', 'Crawler (UA)', 'x'],
  ['carrier_whitelist', 'Carrier override', 'b'],
  ['check_failed', 'Check failed', ''],
];

function shortLink(route) {
  return h('span', { class: 'shortlink' }, h('code', { class: 'short-url' }, route.short_url), copyButton(route.short_url, `the short link of ${route.name}`));
}

async function routesPage(view, { query }) {
  const page = Number(query.get('page') ?? 1) || 1;
  const { data, pagination } = await api('GET', `/v1/routes?page=${page}&limit=20`);
  const rows = data.map((r) => h('tr', { 'data-route-id': r.id },
    h('td', { 'data-label': 'Name' }, h('a', { href: `#/routes/${r.id}` }, r.name)),
    h('td', { 'data-label': 'Short link' }, shortLink(r)),
    h('td', { 'data-label': 'Split', class: 'num' }, splitText(r)),
    h('td', { 'data-label': 'Level' }, r.intercept_level),
    h('td', { 'data-label': 'Created' }, time(r.created_at))));
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' },
    page > 1 ? h('a', { class: 'button secondary', href: `#/routes?page=${page - 1}` }, 'Previous') : null,
    h('span', {}, `Page ${page} of ${Math.max(1, pagination.pages)} · ${pagination.total} routes`),
    page < pagination.pages ? h('a', { class: 'button secondary', href: `#/routes?page=${page + 1}` }, 'Next') : null);
  view.append(
    h('div', { class: 'spread' }, h('h1', {}, 'Routes'), h('a', { class: 'button', href: '#/routes/new' }, 'New route')),
    h('section', { class: 'panel' },
      data.length === 0 ? h('p', { class: 'empty' }, page > 1 ? 'No routes on this page.' : 'No routes yet. Create one to get a short link.') :
        h('table', { class: 'cards' },
          h('thead', {}, h('tr', {}, ['Name', 'Short link', 'Split', 'Level', 'Created'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, rows)),
      pager),
  );
}

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

/** "50 / 50" for two variants (percent of a and b), else the weights' percentages in key order. */
function splitText(r) {
  if (r.split_ratio !== null && r.split_ratio !== undefined) return `${Math.round(r.split_ratio * 100)} / ${100 - Math.round(r.split_ratio * 100)}`;
  const total = r.variants.reduce((t, v) => t + v.weight, 0);
  return r.variants.map((v) => Math.round((v.weight / total) * 100)).join(' / ');
}

/**
 * The variants editor: 2 to 8 rows of a URL and a relative weight, named
 * variants[i].url / variants[i].weight and labelled by their key in order.
 * `onChange` runs after every row added or removed.
 */
function variantsEditor(onChange) {
  const rows = h('div', { class: 'variants-editor' });
  const addButton = h('button', { type: 'button', class: 'secondary small' }, 'Add variant');
  const renumber = () => {
    [...rows.children].forEach((row, i) => {
      const K = KEYS[i].toUpperCase();
      row.querySelector('label[data-part="url"]').textContent = `Variant ${K} URL`;
      row.querySelector('label[data-part="weight"]').textContent = `Variant ${K} weight`;
      row.querySelector('input[type="url"]').name = `variants[${i}].url`;
      row.querySelector('input[type="number"]').name = `variants[${i}].weight`;
      row.querySelector('button').setAttribute('aria-label', `Remove variant ${K}`);
      row.querySelector('button').disabled = rows.children.length <= 2;
    });
    addButton.disabled = rows.children.length >= 8;
    onChange();
  };
  const addRow = (v = { url: '', weight: 1 }) => {
    const url = h('input', { type: 'url', value: v.url, placeholder: 'https://example.com/page' });
    const weight = h('input', { type: 'number', min: 0, step: 'any', value: String(v.weight) });
    const urlField = field('URL', url);
    const weightField = field('weight', weight);
    urlField.querySelector('label').dataset.part = 'url';
    weightField.querySelector('label').dataset.part = 'weight';
    const remove = h('button', { type: 'button', class: 'secondary small' }, 'Remove');
    const row = h('div', { class: 'row variant-row' }, urlField, weightField, remove);
    remove.addEventListener('click', () => {
      row.remove();
      renumber();
    });
    rows.append(row);
    renumber();
  };
  addButton.addEventListener('click', () => addRow());
  const node = h('fieldset', { class: 'variants' }, h('legend', {}, 'Variants and weights'),
    h('p', { class: 'hint' }, 'Weights are relative (40 / 30 / 30 is the same split as 4 / 3 / 3); a weight of 0 sends nobody there and keeps the history.'),
    rows, addButton);
  return {
    node,
    addRow,
    clear: () => rows.replaceChildren(),
    count: () => rows.children.length,
    values: () => [...rows.children].map((row) => ({
      url: row.querySelector('input[type="url"]').value.trim(),
      weight: Number(row.querySelector('input[type="number"]').value),
    })),
  };
}

/**
 * The route form's fields; `route` fills them for an edit. Two forms: page A
 * and B with a share (the two-variant view), or the variants editor (2 to 8
 * URLs with weights), which a route of more than two variants always uses
 * and "Use more variants" switches to.
 */
function routeFields(route = {}) {
  const c = {
    name: h('input', { name: 'name', value: route.name ?? '', maxlength: 200, required: true }),
    page_a: h('input', { name: 'page_a', type: 'url', value: route.page_a ?? '', placeholder: 'https://example.com/a', required: true }),
    page_b: h('input', { name: 'page_b', type: 'url', value: route.page_b ?? '', placeholder: 'https://example.com/b', required: true }),
    split_ratio: h('input', { name: 'split_ratio', type: 'number', min: 0, max: 100, step: 1, value: String(Math.round((route.split_ratio ?? 0.5) * 100)) }),
    default_group: h('select', { name: 'default_group' }),
    intercept_level: select('intercept_level', LEVELS, route.intercept_level ?? 'medium'),
    append_click_id: h('input', { name: 'append_click_id', type: 'checkbox', checked: route.append_click_id === true }),
  };
  let multi = (route.variants?.length ?? 0) > 2;
  const twoWay = h('div', {},
    h('div', { class: 'row' }, field('Page A URL', c.page_a), field('Page B URL', c.page_b)),
    field('Share of real visitors sent to page A (%)', c.split_ratio, 'The rest go to page B.'));
  const moreButton = h('button', { type: 'button', class: 'secondary small' }, 'Use more variants');
  const groupOptions = () => {
    const count = multi ? editor.count() : 2;
    const current = c.default_group.value || route.default_group || 'a';
    c.default_group.replaceChildren(...KEYS.slice(0, count).map((k) => h('option', { value: k, selected: k === current }, multi ? `Variant ${k.toUpperCase()}` : `Page ${k.toUpperCase()}`)));
  };
  const editor = variantsEditor(groupOptions);
  const showMode = () => {
    twoWay.hidden = multi;
    editor.node.hidden = !multi;
    moreButton.hidden = multi;
    groupOptions();
  };
  moreButton.addEventListener('click', () => {
    // Start from what the two-variant fields say.
    const pct = Number(c.split_ratio.value || 50);
    editor.clear();
    editor.addRow({ url: c.page_a.value.trim(), weight: pct });
    editor.addRow({ url: c.page_b.value.trim(), weight: 100 - pct });
    multi = true;
    showMode();
  });
  for (const v of multi ? route.variants : []) editor.addRow(v);
  showMode();

  const nodes = [
    field('Name', c.name),
    twoWay,
    editor.node,
    moreButton,
    h('div', { class: 'row' },
      field('Intercepted visitors go to', c.default_group),
      field('Interception level', c.intercept_level)),
    h('div', { class: 'field checkbox' }, h('label', {}, c.append_click_id, ' Append a click id (sg_cid) for conversions')),
  ];
  const values = () => {
    const common = { name: c.name.value, default_group: c.default_group.value, intercept_level: c.intercept_level.value, append_click_id: c.append_click_id.checked };
    if (multi) {
      return { ...common, variants: editor.values() };
    }
    const pct = c.split_ratio.value.trim();
    return { ...common, page_a: c.page_a.value.trim(), page_b: c.page_b.value.trim(), split_ratio: pct === '' ? undefined : Number(pct) / 100 };
  };
  return { nodes, values };
}

async function newRoutePage(view) {
  const { nodes, values } = routeFields();
  view.append(h('h1', {}, 'New route'), h('section', { class: 'panel' }, form({}, [nodes, h('div', { class: 'actions' },
    h('button', { type: 'submit' }, 'Create route'), h('a', { class: 'button secondary', href: '#/routes' }, 'Cancel'))], async () => {
    const route = await api('POST', '/v1/routes', values());
    toast(`Route "${route.name}" created`);
    go(`/routes/${route.id}`);
  })));
}

/** The route's settings as a definition list; `show(route)` redraws them. */
function routeFacts() {
  const facts = h('dl', { class: 'facts' });
  const show = (route) => facts.replaceChildren(
    h('dt', {}, 'Short link'), h('dd', {}, shortLink(route)),
    ...(route.variants.length === 2 ? [
      h('dt', {}, 'Page A'), h('dd', {}, h('code', {}, route.page_a)),
      h('dt', {}, 'Page B'), h('dd', {}, h('code', {}, route.page_b)),
      h('dt', {}, 'Split'), h('dd', {}, `${Math.round(route.split_ratio * 100)} % of real visitors to A, the rest to B`),
    ] : route.variants.flatMap((v) => [h('dt', {}, `Variant ${v.key.toUpperCase()}`), h('dd', {}, h('code', {}, v.url), ` · weight ${v.weight}`)])),
    h('dt', {}, 'Interception'), h('dd', {}, `${route.intercept_level}; intercepted visitors go to page ${route.default_group.toUpperCase()}`),
    h('dt', {}, 'Click id'), h('dd', {}, route.append_click_id ? 'sg_cid is appended for conversions' : 'not appended'),
    h('dt', {}, 'Created'), h('dd', {}, time(route.created_at)),
    h('dt', {}, 'Updated'), h('dd', {}, time(route.updated_at)));
  return { nodes: [facts], show };
}

/** The last 7 days' summary and charts; `show(stats)` redraws them when the figures changed. */
function statsPanel() {
  const charts = h('div', { class: 'charts' });
  const summary = h('p', { class: 'stats-summary' });
  let shown = '';
  const show = (stats) => {
    const key = JSON.stringify(stats);
    if (key === shown) return;
    shown = key;
    const daily = stats.clicks.daily;
    // a and b, then c to h for a route with more variants.
    const groups = Object.keys(stats.groups);
    const sent = groups.map((k) => `${stats.groups[k]} to ${k.toUpperCase()}`).join(', ');
    summary.textContent = `${stats.clicks.total} clicks from ${stats.window.from} to ${stats.window.to} (UTC): ${sent}, ${stats.intercepted} intercepted.`;
    const hits = stats.rule_hits;
    charts.replaceChildren(
      h('figure', { class: 'chart-clicks' }, h('figcaption', {}, 'Clicks per day, last 7 days'),
        columnChart({ title: 'Clicks per day', labels: daily.map((d) => d.date.slice(5)), keys: daily.map((d) => d.date), values: daily.map((d) => d.clicks), xTitle: 'Day (UTC, month-day)', yTitle: 'Clicks' })),
      h('figure', { class: 'chart-groups' }, h('figcaption', {}, 'Where visitors went'),
        barChart({ title: 'Group split', labels: [...groups.map((k) => `Page ${k.toUpperCase()}`), 'Intercepted'], keys: [...groups, 'intercepted'], values: [...groups.map((k) => stats.groups[k]), stats.intercepted], classes: [...groups.map((k) => (k === 'a' ? '' : 'b')), 'x'], xTitle: 'Visitors, last 7 days' })),
      h('figure', { class: 'chart-rules' }, h('figcaption', {}, 'Rule hits'),
        barChart({ title: 'Rule hits', labels: RULES.map((r) => r[1]), keys: RULES.map((r) => r[0]), values: RULES.map((r) => hits[r[0]] ?? 0), classes: RULES.map((r) => r[2]), xTitle: 'Hits, last 7 days' })));
  };
  return { nodes: [summary, charts], show };
}

/** One variant's row of the experiment table, with its "Promote" button. */
function experimentRow(v, g, promote) {
  const pct = (x) => (x === null ? '—' : `${(x * 100).toFixed(2)} %`);
  const button = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Promote variant ${v.key.toUpperCase()}` }, 'Promote');
  button.addEventListener('click', () => promote(v.key));
  return h('tr', { 'data-variant': v.key },
    h('th', { scope: 'row' }, `Variant ${v.key.toUpperCase()}`),
    h('td', { class: 'num', 'data-col': 'weight' }, String(v.weight)),
    h('td', { class: 'num', 'data-col': 'visitors' }, String(v.visitors)),
    h('td', { class: 'num', 'data-col': 'clicks' }, String(v.clicks)),
    h('td', { class: 'num', 'data-col': 'conversions' }, String(g.count)),
    h('td', { class: 'num', 'data-col': 'rate' }, g.rate === null ? '—' : `${pct(g.rate)} (${pct(g.ci95[0])} – ${pct(g.ci95[1])})`),
    h('td', { class: 'num', 'data-col': 'lift' }, g.lift === null ? '—' : `${g.lift >= 0 ? '+' : ''}${(g.lift * 100).toFixed(1)} %`),
    h('td', { class: 'num', 'data-col': 'p_value' }, g.p_value === null ? '—' : String(g.p_value)),
    h('td', { class: 'num', 'data-col': 'prob_best' }, pct(g.prob_best)),
    h('td', {}, button));
}

/**
 * The experiment panel: the sample-ratio alarm, the goal, the per-variant
 * table and the rates chart. `show(exp, variants)` redraws it when anything
 * shown changed; `promote(key)` is the page's (it asks and saves).
 */
function experimentPanel(promote) {
  const box = h('div', { class: 'experiment' });
  let goal = 'conversion';
  let shown = '';
  const show = (exp, variants) => {
    const key = JSON.stringify([exp, goal, variants]);
    if (key === shown) return;
    shown = key;
    if (!exp.goals.includes(goal)) goal = exp.goals[0];
    const goalSelect = select('goal', exp.goals.map((g) => [g, g]), goal);
    goalSelect.addEventListener('change', () => {
      goal = goalSelect.value;
      show(exp, variants);
    });
    box.replaceChildren(...[
      exp.srm.alert
        ? h('p', { class: 'srm-alert', role: 'alert' }, `Sample-ratio mismatch: the visitors do not follow the weights (p = ${exp.srm.p_value}). Check interception and the pages before trusting these results.`)
        : null,
      exp.goals.length > 1 ? field('Goal', goalSelect) : null,
      h('div', { class: 'table-wrap' }, h('table', { class: 'experiment' },
        h('caption', { class: 'hint' }, `Real visitors from ${exp.window.from} to ${exp.window.to} (UTC); goal "${goal}"; lift and p-value against variant A`),
        h('thead', {}, h('tr', {}, ['Variant', 'Weight', 'Visitors', 'Clicks', 'Conversions', 'Rate (95 % interval)', 'Lift', 'p-value', 'P(best)', ''].map((t, i) => h('th', { scope: 'col', class: i > 0 && i < 9 ? 'num' : '' }, t)))),
        h('tbody', {}, exp.variants.map((v) => experimentRow(v, v.conversions[goal], promote))))),
      h('div', { class: 'charts' }, h('figure', { class: 'chart-rates' }, h('figcaption', {}, 'Conversion rate with its 95 % interval'),
        intervalChart({
          title: `Conversion rate, goal ${goal}`,
          labels: exp.variants.map((v) => `Variant ${v.key.toUpperCase()}`),
          keys: exp.variants.map((v) => v.key),
          rates: exp.variants.map((v) => v.conversions[goal].rate),
          intervals: exp.variants.map((v) => v.conversions[goal].ci95),
          xTitle: 'Conversion rate (%)',
        }))),
    ].filter((n) => n !== null));
  };
  return { nodes: [box], show };
}

async function routePage(view, { match }) {
  const id = match[1];
  let route = await api('GET', `/v1/routes/${id}`);
  // Every change this page sends names the version it was made from
  // (If-Match: the route's updated_at), so that an edit made elsewhere since
  // (another tab, an integration's key, another node) is refused, never
  // overwritten: a PUT of variants replaces the whole list. The form's
  // version is the route as the form last showed it (loaded or saved by it);
  // a promote reads the route afresh and names that.
  let formVersion = route.updated_at;
  const ifMatch = (version) => ({ 'If-Match': `"${version}"` });
  /** A refusal for a stale version, in words for the page. */
  const stale = (err, what) => (err.code === 'precondition_failed' ? new Error(`the route has changed ${what}; reload the page to see it, then make your change again`) : err);
  const title = h('h1', {}, route.name);
  const facts = routeFacts();
  const stats = statsPanel();
  const saved = (fresh, message) => {
    route = { ...route, ...fresh };
    title.textContent = route.name;
    document.title = `${route.name} · splitguard`;
    facts.show(route);
    toast(message);
  };
  // Holds a refused promote's message (a new role="alert" paragraph, as
  // showError adds, so that it is announced), above the experiment table whose
  // redraws would wipe anything inside it; emptied when the next promote starts.
  const promoteError = h('div');
  const experiment = experimentPanel(async (key) => {
    const K = key.toUpperCase();
    if (!(await confirmDialog(`Send every real visitor to variant ${K}? The other variants get weight 0 and keep their history.`, 'Promote'))) return;
    promoteError.replaceChildren();
    try {
      // A PUT replaces the whole list, so build it from the route as stored
      // now, not as this page loaded it: the table is redrawn from fresh data
      // every second, and a variant added or a URL changed elsewhere since the
      // page opened must survive the promote (URLs as stored, weight 100 for
      // the promoted key, 0 for the others).
      const now = await api('GET', `/v1/routes/${id}`);
      if (!now.variants.some((x) => x.key === key)) throw new Error('it is no longer in this route (the table will show the current variants)');
      const variants = now.variants.map((x) => ({ url: x.url, weight: x.key === key ? 100 : 0 }));
      saved(await api('PUT', `/v1/routes/${id}`, { variants }, ifMatch(now.updated_at)), `Variant ${K} promoted to 100 %`);
      refill();
    } catch (err) {
      // An ended session has already brought up the login page.
      if (err.code === 'session_invalid') return;
      promoteError.replaceChildren(h('p', { class: 'form-error', role: 'alert' }, `Variant ${K} was not promoted: ${stale(err, 'while it was being promoted').message}`));
    }
  });

  let fields = routeFields(route);
  const saveButton = h('button', { type: 'submit' }, 'Save changes');
  const edit = form({}, [fields.nodes, saveButton], async () => {
    const v = fields.values();
    const same = (k, val) => (k === 'variants' ? JSON.stringify(val) === JSON.stringify(route.variants.map((x) => ({ url: x.url, weight: x.weight }))) : val === route[k]);
    const changes = Object.fromEntries(Object.entries(v).filter(([k, val]) => val !== undefined && !same(k, val)));
    if (Object.keys(changes).length === 0) {
      toast('Nothing changed');
      return;
    }
    let fresh;
    try {
      fresh = await api('PUT', `/v1/routes/${id}`, changes, ifMatch(formVersion));
    } catch (err) {
      throw stale(err, 'since this form was loaded');
    }
    formVersion = fresh.updated_at;
    saved(fresh, 'Route saved');
  });
  // After a promote, the form shows the route as stored (its variants and
  // weights changed) and names that version: left as it was, it would send
  // the old weights back with the next save, or be refused as stale.
  const refill = () => {
    fields = routeFields(route);
    edit.replaceChildren(...fields.nodes, saveButton);
    formVersion = route.updated_at;
  };
  const del = h('button', { type: 'button', class: 'danger', onclick: async () => {
    if (!(await confirmDialog(`Delete route "${route.name}"? Its short link stops working at once and its code is never reused.`, 'Delete route'))) return;
    await api('DELETE', `/v1/routes/${id}`);
    toast(`Route "${route.name}" deleted`);
    go('/routes');
  } }, 'Delete route');

  // A cluster node whose PostgreSQL is away answers the figures it last read, and says when.
  const asOf = h('p', { class: 'hint', role: 'status' });
  const showAsOf = (r) => {
    asOf.textContent = r.stats_as_of ? `The cluster storage is unreachable: figures as of ${new Date(r.stats_as_of).toLocaleTimeString('en')}.` : '';
  };
  facts.show(route);
  showAsOf(route);
  stats.show(route.stats);
  experiment.show(route.experiment, route.variants);
  view.append(
    h('p', {}, h('a', { href: '#/routes' }, '← All routes')),
    title,
    h('section', { class: 'panel' }, ...facts.nodes),
    h('section', { class: 'panel', 'aria-labelledby': 'stats-h' }, h('h2', { id: 'stats-h' }, 'Last 7 days'), asOf, ...stats.nodes),
    h('section', { class: 'panel', 'aria-labelledby': 'exp-h' }, h('h2', { id: 'exp-h' }, 'Experiment'), promoteError, ...experiment.nodes),
    h('section', { class: 'panel', 'aria-labelledby': 'edit-h' }, h('h2', { id: 'edit-h' }, 'Edit route'), edit),
    h('section', { class: 'panel', 'aria-labelledby': 'del-h' }, h('h2', { id: 'del-h' }, 'Delete route'), del),
  );
  // Visits are counted within about two seconds; keep the charts current.
  every(1000, async () => {
    try {
      const fresh = await api('GET', `/v1/routes/${id}`);
      showAsOf(fresh);
      stats.show(fresh.stats);
      experiment.show(fresh.experiment, fresh.variants);
    } catch {
      stopTimers();
    }
  });
}

// --- IP check -------------------------------------------------------------------

const CATEGORY = { datacenter: 'Data center / cloud', vpn_proxy: 'VPN / proxy', carrier: 'Carrier / ISP', other: 'Other network', unknown: 'Not in the database' };

function ipResult(r) {
  const yesNo = (v) => (v ? h('span', { class: 'badge bad' }, 'listed') : h('span', { class: 'badge neutral' }, 'not listed'));
  const word = (w, hit) => (w ? h('span', { class: `badge ${hit}` }, `"${w}"`) : h('span', { class: 'badge neutral' }, 'no match'));
  const feed = (f) => (f ? h('span', { class: `badge ${f.label === 'relay' ? 'neutral' : 'bad'}` }, `${f.feed} (${f.label})`) : h('span', { class: 'badge neutral' }, 'not listed'));
  return h('article', { class: 'panel ip-result', 'data-ip': r.ip },
    h('header', {}, h('h3', { class: 'mono' }, r.ip), h('span', { class: `badge ${r.category}` }, CATEGORY[r.category] ?? r.category)),
    h('p', { class: `verdict ${r.intercepted ? 'intercept' : 'pass'}` }, r.intercepted ? `Intercepted at level ${r.level}` : `Passes at level ${r.level}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Organization'), h('dd', { class: 'organization' }, r.organization ?? '—'),
      h('dt', {}, 'ASN'), h('dd', {}, r.asn === null ? '—' : `AS${r.asn}`),
      h('dt', {}, 'Range'), h('dd', { class: 'mono' }, r.range ? `${r.range.start} – ${r.range.end}` : '—')),
    h('table', { class: 'signals' },
      h('caption', { class: 'hint' }, 'Signals, in the order they are applied'),
      h('tbody', {},
        h('tr', {}, h('th', { scope: 'row' }, 'ASN blacklist'), h('td', { 'data-signal': 'asn_blacklist' }, yesNo(r.signals.asn_blacklist))),
        h('tr', {}, h('th', { scope: 'row' }, 'Range feed'), h('td', { 'data-signal': 'range_feed' }, feed(r.signals.range_feed))),
        h('tr', {}, h('th', { scope: 'row' }, 'Data-center keyword'), h('td', { 'data-signal': 'org_keyword' }, word(r.signals.org_keyword, 'bad'))),
        h('tr', {}, h('th', { scope: 'row' }, 'VPN / proxy keyword'), h('td', { 'data-signal': 'vpn_proxy' }, word(r.signals.vpn_proxy, 'bad'))),
        h('tr', {}, h('th', { scope: 'row' }, 'Carrier whitelist'), h('td', { 'data-signal': 'carrier_whitelist' }, word(r.signals.carrier_whitelist, 'ok'))))),
    h('ul', { class: 'levels', 'aria-label': 'Decision at each level' },
      h('li', { class: r.level === 'off' ? 'current' : '' }, h('span', { class: 'badge off' }, 'off: pass')),
      ['low', 'medium', 'high'].map((l) => h('li', { class: r.level === l ? 'current' : '', 'data-level': l },
        h('span', { class: `badge ${r.intercept[l] ? 'intercept' : 'pass'}` }, `${l}: ${r.intercept[l] ? 'intercept' : 'pass'}`)))));
}

async function ipPage(view, { query }) {
  const ips = h('textarea', { name: 'ips', spellcheck: 'false', placeholder: '8.8.8.8\n2a00:1450:4001::1' });
  ips.value = query.get('ip') ?? '';
  const level = select('level', LEVELS, 'medium');
  const results = h('div', { class: 'ip-results', 'aria-live': 'polite' });
  const f = form({}, [
    field('IP addresses', ips, 'One address, or up to 50 separated by new lines, spaces or commas. IPv4, IPv6 and IPv4-mapped IPv6.'),
    h('div', { class: 'row' }, field('Level', level), h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Check'))),
  ], async () => {
    const list = ips.value.split(/[\s,]+/).filter(Boolean);
    if (list.length === 0 || list.length > 50) throw new ApiError(400, { error: `enter 1 to 50 addresses (got ${list.length})`, field: 'ips' });
    const out = list.length === 1
      ? [await api('GET', `/v1/ip/check?ip=${encodeURIComponent(list[0])}&level=${level.value}`)]
      : (await api('POST', '/v1/ip/check', { ips: list, level: level.value })).results;
    results.replaceChildren(...out.map(ipResult));
  });
  view.append(h('h1', {}, 'IP check'), h('section', { class: 'panel' }, f), results);
  if (ips.value) f.requestSubmit();
}

// --- database -----------------------------------------------------------------

/** A feed's last refresh outcome as the page shows it: ok, failed or not yet fetched. */
function feedOutcome(f) {
  if (f.last_outcome === 'failed') return { key: 'failed', text: 'failed', badge: 'failed' };
  if (f.last_outcome === null) return { key: 'none', text: 'not yet fetched', badge: 'neutral' };
  return { key: 'ok', text: 'ok', badge: 'ok' };
}

/** The feeds of GET /v1/ip/database: a summary that names failing feeds, then one row per feed. */
function feedsSection(feeds) {
  const outcomes = feeds.map(feedOutcome);
  const count = (key) => outcomes.filter((o) => o.key === key).length;
  const failed = feeds.filter((f, i) => outcomes[i].key === 'failed').map((f) => f.name);
  const summary = `${feeds.length} feeds: ${count('ok')} ok, ${count('failed')} failed, ${count('none')} not yet fetched.`;
  const row = (f, o) => h('tr', { 'data-feed': f.name, 'data-outcome': o.key },
    h('td', { 'data-label': 'Feed', class: 'mono feed-name' }, f.name),
    h('td', { 'data-label': 'Label', class: 'feed-label' }, f.label),
    h('td', { 'data-label': 'Version', class: 'mono feed-version' }, f.version ?? '—'),
    h('td', { 'data-label': 'Fetched', class: 'feed-fetched' }, when(f.fetched_at)),
    h('td', { 'data-label': 'Ranges', class: 'num feed-ranges' }, countText(f.ranges)),
    h('td', { 'data-label': 'Last outcome', class: 'feed-outcome' },
      h('span', { class: `badge ${o.badge}` }, o.text),
      o.key === 'ok' ? h('span', { class: 'hint' }, ` ${f.last_outcome}`) : null,
      f.last_error ? h('p', { class: 'feed-error' }, f.last_error) : null),
    h('td', { 'data-label': 'Next refresh' }, time(f.next_refresh_at)));
  return h('section', { class: 'panel feeds', 'aria-labelledby': 'feeds-h' }, h('h2', { id: 'feeds-h' }, 'Range feeds'),
    feeds.length === 0 ? h('p', { class: 'empty' }, 'No feeds are configured (SPLITGUARD_FEEDS).') : [
      h('p', { class: 'feeds-summary' }, summary, failed.length ? h('strong', {}, ` Failing: ${failed.join(', ')}.`) : null),
      h('table', { class: 'cards feeds' },
        h('caption', { class: 'hint' }, 'Version, fetched and ranges describe the data serving now: a snapshot\'s date until the first good download; a dash where the serving database holds nothing under the feed\'s name. A failed feed keeps serving its last good data.'),
        h('thead', {}, h('tr', {}, ['Feed', 'Label', 'Version', 'Fetched', 'Ranges', 'Last outcome', 'Next refresh'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, feeds.map((f, i) => row(f, outcomes[i])))),
    ]);
}

async function databasePage(view) {
  const body = h('div');
  const status = h('p', { 'aria-live': 'polite', class: 'refresh-status' });
  const button = h('button', { type: 'button', class: 'refresh' }, 'Refresh now');
  let lastFinished;
  const load = async () => {
    const db = await api('GET', '/v1/ip/database');
    const r = db.last_refresh;
    if (lastFinished !== undefined && r && r.finished_at !== lastFinished && !db.refresh_running) status.textContent = `Refresh finished: ${r.outcome}.`;
    lastFinished = r?.finished_at ?? null;
    const mb = db.size === null ? '—' : `${(db.size / 1048576).toFixed(1)} MB`;
    body.replaceChildren(
      h('section', { class: 'panel', 'aria-labelledby': 'db-h' }, h('h2', { id: 'db-h' }, 'Serving now'),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Version'), h('dd', { class: 'db-version' }, db.version ?? 'no database'),
          h('dt', {}, 'Built'), h('dd', {}, when(db.built_at)),
          h('dt', {}, 'Source'), h('dd', {}, db.source ?? '—'),
          h('dt', {}, 'IPv4 ranges'), h('dd', {}, countText(db.ranges?.v4)),
          h('dt', {}, 'IPv6 ranges'), h('dd', {}, countText(db.ranges?.v6)),
          h('dt', {}, 'Organizations'), h('dd', {}, countText(db.records)),
          h('dt', {}, 'Size'), h('dd', {}, mb),
          h('dt', {}, 'Next scheduled refresh'), h('dd', {}, time(db.next_refresh_at)),
          h('dt', {}, 'Refresh running'), h('dd', {}, db.refresh_running ? h('span', { class: 'badge running' }, 'running') : 'no'))),
      h('section', { class: 'panel last-refresh', 'aria-labelledby': 'lr-h' }, h('h2', { id: 'lr-h' }, 'Last refresh'),
        !r ? h('p', { class: 'empty' }, 'No refresh has run yet.') : [
          h('dl', { class: 'facts' },
            h('dt', {}, 'Outcome'), h('dd', {}, h('span', { class: `badge ${r.outcome} outcome` }, r.outcome)),
            h('dt', {}, 'Trigger'), h('dd', {}, r.trigger),
            h('dt', {}, 'Started'), h('dd', {}, when(r.started_at)),
            h('dt', {}, 'Finished'), h('dd', {}, time(r.finished_at)),
            h('dt', {}, 'Source used'), h('dd', {}, r.source ?? '—'),
            h('dt', {}, 'Version'), h('dd', {}, r.version ?? '—'),
            r.error ? [h('dt', {}, 'Error'), h('dd', {}, r.error)] : null),
          h('h3', {}, 'Per source node'),
          h('table', { class: 'cards nodes' },
            h('thead', {}, h('tr', {}, ['Source', 'Outcome', 'Error', 'Time'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, r.nodes.map((n) => h('tr', {},
              h('td', { 'data-label': 'Source', class: 'mono' }, n.source),
              h('td', { 'data-label': 'Outcome' }, h('span', { class: `badge ${n.outcome}` }, n.outcome)),
              h('td', { 'data-label': 'Error' }, n.error ?? '—'),
              h('td', { 'data-label': 'Time', class: 'num' }, `${(n.ms / 1000).toFixed(1)} s`))))),
        ]),
      feedsSection(db.feeds),
    );
    return db;
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const out = await api('POST', '/v1/ip/update');
      status.textContent = out.status === 'started' ? `Refresh started at ${time(out.started_at)}.` : `A refresh is already running (since ${time(out.started_at)}).`;
      status.textContent += ` The next manual refresh is allowed at ${time(out.next_allowed_at)}.`;
      await load();
    } catch (err) {
      status.textContent = err.code === 'refresh_too_soon' ? `Not yet: ${err.message}.` : err.message;
    } finally {
      button.disabled = false;
    }
  });
  view.append(h('h1', {}, 'IP database'),
    h('section', { class: 'panel' },
      h('p', {}, 'The database refreshes itself on a schedule. A manual refresh may be triggered once an hour per account.'),
      button, status),
    body);
  await load();
  every(2000, () => load().catch(stopTimers));
}

// --- admin: blacklist -----------------------------------------------------------

const CATEGORIES = ['datacenter', 'cloud', 'hosting', 'vpn', 'proxy', 'cdn', 'transit'];

async function blacklistPage(view, { query }) {
  const q = query.get('q') ?? '';
  const page = Number(query.get('page') ?? 1) || 1;
  const search = h('input', { name: 'q', type: 'search', value: q, placeholder: 'e.g. 16509, AS15169 or amazon' });
  const searchForm = form({ role: 'search' }, [h('div', { class: 'row' }, field('Search by ASN or provider name', search),
    h('div', { class: 'field' }, h('button', { type: 'submit' }, 'Search')))], async () => {
    go(`/admin/blacklist?q=${encodeURIComponent(search.value.trim())}`);
  });
  const { data, pagination } = await api('GET', `/v1/admin/blacklist?q=${encodeURIComponent(q)}&page=${page}&limit=25`);

  const toggle = (e) => h('button', { type: 'button', class: `small ${e.enabled ? 'secondary' : ''}`, 'aria-label': `${e.enabled ? 'Disable' : 'Enable'} AS${e.asn}`, onclick: async () => {
    await api('PUT', `/v1/admin/blacklist/${e.asn}`, { enabled: !e.enabled });
    toast(`AS${e.asn} ${e.enabled ? 'disabled' : 'enabled'}`);
    render();
  } }, e.enabled ? 'Disable' : 'Enable');
  const remove = (e) => h('button', { type: 'button', class: 'danger small', 'aria-label': `Remove AS${e.asn}`, onclick: async () => {
    if (!(await confirmDialog(`Remove the custom entry AS${e.asn} (${e.provider})?`, 'Remove entry'))) return;
    await api('DELETE', `/v1/admin/blacklist/${e.asn}`);
    toast(`AS${e.asn} removed`);
    render();
  } }, 'Remove');
  const rows = data.map((e) => h('tr', { 'data-asn': e.asn },
    h('td', { 'data-label': 'ASN', class: 'mono' }, `AS${e.asn}`),
    h('td', { 'data-label': 'Provider' }, e.provider),
    h('td', { 'data-label': 'Category' }, e.category),
    h('td', { 'data-label': 'From level' }, e.level),
    h('td', { 'data-label': 'Kind' }, e.built_in ? 'built-in' : 'custom'),
    h('td', { 'data-label': 'State', class: 'state' }, h('span', { class: `badge ${e.enabled ? 'active' : 'neutral'}` }, e.enabled ? 'enabled' : 'disabled')),
    h('td', { 'data-label': 'Note' }, e.note ?? ''),
    h('td', { 'data-label': 'Actions' }, h('div', { class: 'actions' }, toggle(e), e.built_in ? null : remove(e)))));

  const c = {
    asn: h('input', { name: 'asn', inputmode: 'numeric', placeholder: '64500' }),
    provider: h('input', { name: 'provider', maxlength: 200 }),
    category: select('category', CATEGORIES.map((x) => [x, x]), 'hosting'),
    level: select('level', [['low', 'low and up'], ['medium', 'medium and up'], ['high', 'high only']], 'low'),
    note: h('input', { name: 'note', maxlength: 500 }),
  };
  const add = form({}, [
    h('div', { class: 'row' }, field('ASN', c.asn), field('Provider name', c.provider), field('Category', c.category), field('Applies from level', c.level)),
    field('Note', c.note, 'Why this network is listed; shown to other operators.'),
    h('button', { type: 'submit' }, 'Add entry'),
  ], async () => {
    const raw = c.asn.value.trim().replace(/^AS/i, '');
    const e = await api('POST', '/v1/admin/blacklist', { asn: /^[0-9]{1,10}$/.test(raw) ? Number(raw) : raw, provider: c.provider.value, category: c.category.value, level: c.level.value, note: c.note.value });
    toast(`AS${e.asn} added`);
    go(`/admin/blacklist?q=${e.asn}`);
  });
  const pages = Math.max(1, pagination.pages);
  const link = (p) => `#/admin/blacklist?q=${encodeURIComponent(q)}&page=${p}`;
  view.append(
    h('h1', {}, 'ASN blacklist'),
    h('section', { class: 'panel' }, searchForm,
      h('p', { class: 'hint' }, `${pagination.total} entries${q ? ` matching "${q}"` : ''}. Changes apply to every server thread within a second.`),
      data.length === 0 ? h('p', { class: 'empty' }, 'No entries match.') : h('table', { class: 'cards' },
        h('thead', {}, h('tr', {}, ['ASN', 'Provider', 'Category', 'From level', 'Kind', 'State', 'Note', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows)),
      h('nav', { class: 'pager', 'aria-label': 'Pages' },
        page > 1 ? h('a', { class: 'button secondary', href: link(page - 1) }, 'Previous') : null,
        h('span', {}, `Page ${page} of ${pages}`),
        page < pages ? h('a', { class: 'button secondary', href: link(page + 1) }, 'Next') : null)),
    h('section', { class: 'panel', 'aria-labelledby': 'add-h' }, h('h2', { id: 'add-h' }, 'Add a custom entry'), add),
  );
}

// --- admin: accounts ------------------------------------------------------------

async function accountsPage(view) {
  const { data } = await api('GET', '/accounts');
  const rows = data.map((a) => {
    const quota = h('input', { name: 'quota', type: 'number', min: 0, step: 1, value: String(a.quota), 'aria-label': `Quota of account ${a.id}` });
    quota.id = `quota-${a.id}`;
    const save = form({ class: 'inline-form' }, [h('div', { class: 'field' }, quota, h('p', { class: 'field-error', id: `${quota.id}-err`, hidden: true })),
      h('div', { class: 'field' }, h('button', { type: 'submit', class: 'small' }, 'Save'))], async () => {
      const out = await api('PUT', `/accounts/${a.id}`, { quota: quota.value.trim() === '' ? null : Number(quota.value) });
      toast(`Quota of "${out.name}" set to ${out.quota}`);
      render();
    });
    return h('tr', { 'data-account-id': a.id },
      h('td', { 'data-label': 'ID', class: 'num' }, a.id),
      h('td', { 'data-label': 'Name', class: 'account-name' }, a.name, a.admin ? h('span', { class: 'hint' }, ' (operator)') : null),
      h('td', { 'data-label': 'Logins' }, a.users.length ? a.users.map((u) => h('div', {}, u.email, u.admin ? ' (admin)' : '')) : h('span', { class: 'empty' }, 'none')),
      h('td', { 'data-label': 'Routes created', class: 'num' }, a.routes_created),
      h('td', { 'data-label': 'Remaining', class: 'num' }, a.quota_remaining),
      h('td', { 'data-label': 'Quota' }, save));
  });
  view.append(h('h1', {}, 'Accounts'), h('section', { class: 'panel' },
    h('p', { class: 'hint' }, 'The quota counts routes created over the account\'s lifetime; deleting a route does not return it.'),
    h('table', { class: 'cards' },
      h('thead', {}, h('tr', {}, ['ID', 'Name', 'Logins', 'Routes created', 'Remaining', 'Quota'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows))));
}

// --- start ------------------------------------------------------------------------

document.getElementById('logout').addEventListener('click', logout);
document.getElementById('skip').addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', () => {
  if (state.me) render({ focus: true });
});

/** Draws the page for the cookie's session, or the sign-in. */
async function start() {
  try {
    const me = await api('GET', '/session');
    state.me = me;
    state.csrf = me.csrf_token;
    renderChrome();
    render();
  } catch (err) {
    if (err.status !== 401) showLogin(`The console could not reach the server: ${err.message}`);
  }
}

// A page the tab leaves may be kept whole in the browser's back-forward
// cache, and Back shows it again as it was: a key's secret, shown once, came
// back with it, and so did the account's pages after their session had
// ended (signed out in another tab, or expired). Leaving forgets what the
// page showed; coming back asks for the session again and draws the page
// afresh, or the sign-in.
window.addEventListener('pagehide', () => {
  stopTimers();
  main.replaceChildren();
  document.getElementById('top').hidden = true;
  document.getElementById('toast').textContent = '';
  for (const d of document.querySelectorAll('dialog')) d.remove();
});
window.addEventListener('pageshow', (e) => {
  if (e.persisted) start();
});

start();
