// The HTTP fuzzer's cases (http-fuzz.js runs them). A case is the exact
// bytes of one request and what the server may answer, by category:
//
//   valid               normal requests (200, 302): the server still works
//   unauthorized        no key, other schemes, unknown/revoked/mangled keys: 401
//   not_found           unknown paths and ids: 404
//   method_not_allowed  every endpoint with every method it lacks: 405 + Allow
//   isolation           another account's routes, admin paths to non-admins: 404
//   invalid_parameter   a wrong type or value at every field and query
//                       parameter of every endpoint: 400 naming the field
//   content_type        JSON bodies labelled as something else: 400 Content-Type
//   invalid_json        malformed JSON, bad UTF-8, empty bodies,
//                       prototype-poisoning keys: 400 invalid_json
//   duplicate_keys      a key twice in one object: the last one counts
//   big_json            deep and huge JSON within and beyond 64 KiB: 400 / 413
//   payload_too_large   declared, actual and chunked bodies over 64 KiB: 413
//   invalid_utf8        invalid UTF-8 in paths, queries, headers and bodies
//   malformed_http      broken request lines and headers, smuggling shapes: a
//                       4xx, or uWebSockets.js closing or ignoring the request
//   oversized_headers   10 KB to 1 MB of headers, 200 header lines, long URLs
//
// Expectations: `status` lists the acceptable statuses; `code` and `field`
// (when given) must match the error body; `close` / `silent` allow the
// connection to be closed without an answer / left without one (the
// malformed categories only). Every answer must be below 500, and every JSON
// error body exactly {error, code, field}. `open` marks a request whose bytes
// stop before the body it declares: the server waits for the rest, so
// whatever follows it on a connection is read as its body (a pipeline puts
// it last).

export const WEIGHTS = {
  valid: 5,
  unauthorized: 9,
  not_found: 6,
  method_not_allowed: 6,
  isolation: 5,
  invalid_parameter: 28,
  content_type: 3,
  invalid_json: 11,
  duplicate_keys: 2,
  big_json: 3,
  payload_too_large: 4,
  invalid_utf8: 4,
  malformed_http: 10,
  oversized_headers: 4,
};

/** Which key a category's requests carry: a plain account's, an admin's, or none. */
export const NEEDS = {
  valid: 'plain',
  unauthorized: 'none',
  not_found: 'plain',
  method_not_allowed: 'mixed',
  isolation: 'plain',
  invalid_parameter: 'mixed',
  content_type: 'plain',
  invalid_json: 'mixed',
  duplicate_keys: 'plain',
  big_json: 'plain',
  payload_too_large: 'plain',
  invalid_utf8: 'plain',
  malformed_http: 'none',
  oversized_headers: 'none',
};

// --- request bytes ---------------------------------------------------------

/**
 * One HTTP/1.1 request. The head is latin1 (so a path can carry raw bytes);
 * a string body is UTF-8. cl: 'auto' (Content-Length when there is a body),
 * 'none', or a literal value. chunk: send the body chunked in pieces of
 * this size.
 */
export function http(method, path, { key, headers = [], body, cl = 'auto', chunk } = {}) {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost'];
  if (key) lines.push(`Authorization: Bearer ${key}`);
  for (const [n, v] of headers) lines.push(`${n}: ${v}`);
  let payload = body === undefined || body === null ? null : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  if (payload && chunk) {
    lines.push('Transfer-Encoding: chunked');
    const parts = [];
    for (let at = 0; at < payload.length; at += chunk) {
      const piece = payload.subarray(at, at + chunk);
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n', 'latin1'));
    }
    parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
    payload = Buffer.concat(parts);
  } else if (cl === 'auto' && payload) {
    lines.push(`Content-Length: ${payload.length}`);
  } else if (cl !== 'auto' && cl !== 'none') {
    lines.push(`Content-Length: ${cl}`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return payload ? Buffer.concat([head, payload]) : head;
}

const JSON_HEADERS = [['Content-Type', 'application/json']];
const jsonReq = (method, path, key, body, headers = JSON_HEADERS) => http(method, path, { key, body, headers });

// --- expectations ----------------------------------------------------------

const p400 = (field) => ({ status: [400], code: 'invalid_parameter', field });
const j400 = (field = null) => ({ status: [400], code: 'invalid_json', field });
const e404 = (field) => ({ status: [404], code: 'not_found', ...(field === undefined ? {} : { field }) });
const e413 = { status: [413], code: 'payload_too_large', field: null };
/** A malformed request: any 4xx, or no answer at all (closed or ignored). */
const REFUSED = { status: [400, 401, 404, 405, 411, 413, 414, 431], close: true, silent: true };

// --- value tables (JSON text) ---------------------------------------------

const j = (v) => JSON.stringify(v);
const NOT_STRING = ['0', '1.5', '-1', 'true', 'false', 'null', '[]', '["x"]', '{}', '{"a":1}'];
const NOT_NUMBER = ['"0.5"', '""', 'true', 'false', 'null', '[]', '{}', '[0.5]', '{"v":0.5}'];
const BAD_NAMES = [...NOT_STRING, '""', '"   "', '"\\t\\n"', j('x'.repeat(201)), j(`   ${'y'.repeat(201)}   `)];
const BAD_URLS = [
  ...NOT_STRING,
  '""', '"example.com"', '"/relative/path"', '"//evil.example/"', '"javascript:alert(1)"', '"JaVaScRiPt:alert(1)"',
  '"data:text/html,<script>alert(1)</script>"', '"ftp://files.example.com/"', '"file:///etc/passwd"', '"mailto:a@example.com"',
  '"https://"', '"http://"', '"https://user:pw@a.example.com/"', '"https://user@a.example.com/"',
  '"https://a.example.com/a\\r\\nSet-Cookie: x=1"', '"https://a.example.com/\\n"', '"https://a.example.com/ a"',
  '"https://a.example.com/\\t"', '"https://a.example.com/\\u0000"', '"https://a.example.com/\\u007f"', '"http://[::1"',
  '"https://exa mple.com/"', j(`https://a.example.com/${'p'.repeat(2040)}`), j(`https://${'h'.repeat(2050)}.example/`),
  '"about:blank"', '"ws://a.example.com/"', '"blob:https://a.example.com/x"',
];
const BAD_RATIOS = [...NOT_NUMBER, '-0.0001', '1.0001', '-1', '2', '1e309', '-1e309', '100'];
const BAD_GROUPS = ['"c"', '"A"', '"B"', '""', '"ab"', '"a "', '1', 'null', 'true', '[]', '{}', '["a"]'];
const BAD_LEVELS = ['"max"', '"OFF"', '"Medium"', '""', '"none"', '"low "', '0', 'null', 'true', '[]', '{}'];
const ANY_VALUES = ['1', '"x"', 'null', 'true', '[]', '{}'];
const UNKNOWN_FIELDS = ['colour', 'Name', 'NAME', 'page_c', 'split', 'ratio', '__proto', 'proto', 'toString', 'hasOwnProperty', 'valueOf', 'isAdmin', 'admin', 'account_id', '名前', '', ' name', 'name '];
const ROUTE_READ_ONLY = ['id', 'code', 'short_url', 'status', 'created_at', 'updated_at', 'stats'];
const ACCOUNT_READ_ONLY = ['id', 'quota', 'routes_created', 'quota_remaining', 'created_at'];
const BAD_IDS = ['abc', '0', '-1', '1.5', '1e3', '01', '%20', '+1', '0x10', '%2F', '1%00', '%D9%A1'];
const BAD_IPS = ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1.2.3.4/24', ' 1.2.3.4', '1.2.3.4 ', '::g', '1::2::3', '0x7f.0.0.1', 'localhost',
  '\uffff', 'x'.repeat(65), '1.2.3.04', '::ffff:1.2.3.256', '[::1]', '١٢٣.1.1.1', '1.2.3.4\u0000', 'fe80::1%eth0', '2001:db8::/32'];
const BAD_QUERY_LEVELS = ['max', 'OFF', 'Medium', 'none', '0', 'null', 'low%20', '%20high', '%00'];
const BAD_PAGES = ['0', '-1', 'abc', '1.5', '1e2', '', '+1', '%201', '9007199254740992', '0x1', '%EF%BC%91', '1%00'];
const BAD_LIMITS = ['0', '101', '-1', 'abc', '', '1000', '2.5', '1e1'];
const BAD_ASN_PATHS = ['abc', '0', '4294967296', 'AS', '-1', '1.5', '%20', 'AS0', 'ASN16509', '99999999999'];

/** A JSON object text from [key, json-text] pairs (kept in order, duplicates allowed). */
const obj = (pairs) => `{${pairs.map(([k, v]) => `${j(k)}:${v}`).join(',')}}`;

// --- helpers ---------------------------------------------------------------

export function rng(seed) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (a) => a[Math.floor(next() * a.length)],
    chance: (p) => next() < p,
  };
}

const ROUTE_BASE = [['name', '"fuzz"'], ['page_a', '"https://a.example.com/f"'], ['page_b', '"https://b.example.com/f"']];

function withField(base, field, value) {
  const pairs = base.filter(([k]) => k !== field);
  pairs.push([field, value]);
  return obj(pairs);
}

// --- categories ------------------------------------------------------------

function valid(r, { acct }) {
  const own = r.pick(acct.routes);
  const k = acct.key;
  const route = r.pick(acct.routes);
  return r.pick([
    () => ({ label: 'GET /v1/account', bytes: http('GET', '/v1/account', { key: k }), expect: { status: [200], check: (a) => (a.json?.id === acct.id ? null : 'another account answered') } }),
    () => ({ label: 'GET /v1/routes', bytes: http('GET', '/v1/routes?limit=5', { key: k }), expect: { status: [200], check: (a) => (a.json?.pagination?.total === acct.routes.length ? null : `total ${a.json?.pagination?.total}`) } }),
    () => ({ label: 'GET /v1/routes/:own', bytes: http('GET', `/v1/routes/${own.id}`, { key: k }), expect: { status: [200], check: (a) => (a.json?.code === own.code ? null : 'wrong route') } }),
    () => ({ label: 'GET /v1/ip/check', bytes: http('GET', '/v1/ip/check?ip=8.8.8.8&level=high', { key: k }), expect: { status: [200] } }),
    () => ({ label: 'POST /v1/ip/check', bytes: jsonReq('POST', '/v1/ip/check', k, '{"ips":["1.1.1.1","2a00:1450::1","::ffff:8.8.8.8"]}'), expect: { status: [200] } }),
    () => ({ label: 'GET /v1/ip/database', bytes: http('GET', '/v1/ip/database', { key: k }), expect: { status: [200] } }),
    () => ({ label: 'GET /healthz', bytes: http('GET', '/healthz'), expect: { status: [200] } }),
    () => ({ label: 'GET /r/:code', bytes: http('GET', `/r/${route.code}?utm=fuzz`), expect: { status: [302], check: (a) => (/^https:\/\/[ab]\.example\.com\/\d+\/\d+\?utm=fuzz$/.test(a.headers.location ?? '') ? null : `Location ${a.headers.location}`) } }),
    () => ({ label: 'HEAD /r/:code', head: true, bytes: http('HEAD', `/r/${route.code}`), expect: { status: [302] } }),
  ])();
}

function unauthorized(r, { revoked, anyKey }) {
  const path = r.pick(['/v1/account', '/v1/routes', '/v1/routes/1', '/v1/ip/check?ip=8.8.8.8', '/v1/ip/update', '/v1/ip/database', '/v1/admin/blacklist', '/v1/nowhere', '/v1/']);
  const method = r.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
  const random = `sg_${Buffer.from(Array.from({ length: 32 }, () => r.int(0, 255))).toString('base64url')}`;
  const [label, auth] = r.pick([
    ['no Authorization', null],
    ['empty Authorization', ''],
    ['Bearer without a key', 'Bearer'],
    ['Bearer and spaces', 'Bearer   '],
    ['Basic', `Basic ${Buffer.from('admin:admin').toString('base64')}`],
    ['Token scheme', `Token ${anyKey}`],
    ['the key alone', anyKey],
    ['an unknown key', `Bearer ${random}`],
    ['lower-case scheme, unknown key', `bearer ${random}`],
    ['a revoked key', `Bearer ${r.pick(revoked)}`],
    ['a valid key minus its last character', `Bearer ${anyKey.slice(0, -1)}`],
    ['a valid key plus a character', `Bearer ${anyKey}x`],
    ['two keys', `Bearer ${anyKey},${anyKey}`],
    ['characters outside base64url', 'Bearer sg_!!!$$$%%%'],
    ['a 300-character token', `Bearer ${'A'.repeat(300)}`],
    ['a valid key then junk', `Bearer ${anyKey} junk`],
    ['a JWT-looking token', 'Bearer eyJhbGciOiJub25lIn0.eyJhZG1pbiI6dHJ1ZX0.'],
    ['percent-encoded key', `Bearer ${encodeURIComponent(`${anyKey}=`)}`],
  ]);
  const headers = auth === null ? [] : [['Authorization', auth]];
  const body = method === 'POST' || method === 'PUT' ? '{"name":"x"}' : undefined;
  return {
    label: `${method} ${path.split('?')[0]}: ${label}`,
    bytes: http(method, path, { headers: body ? [...headers, ...JSON_HEADERS] : headers, body }),
    expect: { status: [401], code: 'unauthorized', field: 'Authorization', headers: { 'www-authenticate': /^Bearer$/ } },
  };
}

function notFound(r, { acct, other }) {
  const k = acct.key;
  return r.pick([
    () => {
      const path = r.pick(['/v1/nope', '/v1/', '/v1/routes/1/x', '/v1/account/1', '/v1/ip', '/v1/ip/check/8.8.8.8', '/v1/ip/update/now',
        '/v1/%ff', `/v1/${'a'.repeat(r.int(100, 3000))}`, '/v1/Account', '/v1/ROUTES', '/v1/routes%2F1', '/v1/admin/blacklist/1/x']);
      const method = r.pick(['GET', 'POST', 'PUT', 'DELETE']);
      return { label: `${method} unknown /v1 path`, bytes: http(method, path, { key: k }), expect: e404(null) };
    },
    () => {
      const id = r.pick([r.int(10_000_000, 999_999_999_999_999), 999_999_999_999_999, '1234567890123456', '99999999999999999999']);
      const method = r.pick(['GET', 'DELETE']);
      return { label: `${method} /v1/routes/<id that never existed>`, bytes: http(method, `/v1/routes/${id}`, { key: k }), expect: e404('id') };
    },
    () => {
      const path = r.pick(['/', '/x', '/r', '/r/', '/r/short', '/r/abcdefgh', `/r/${r.pick(other.routes).code}/extra`, '/healthz/x', '/metricsx', '/console-x', '/v2/account', '/V1/account',
        `/${'z'.repeat(r.int(10, 4000))}`, '/.env', '/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/r/%00%00%00%00%00%00%00%00']);
      return { label: 'GET unknown path without a key', bytes: http('GET', path), expect: { status: [404] } };
    },
  ])();
}

const ENDPOINTS = (own, admin) => [
  { path: '/v1/account', allow: ['GET', 'PUT'] },
  { path: '/v1/routes', allow: ['GET', 'POST'] },
  { path: `/v1/routes/${own}`, allow: ['GET', 'PUT', 'DELETE'] },
  { path: '/v1/ip/check', allow: ['GET', 'POST'] },
  { path: '/v1/ip/update', allow: ['POST'] },
  { path: '/v1/ip/database', allow: ['GET'] },
  { path: '/v1/admin/blacklist', allow: ['GET', 'POST'], admin },
  { path: '/v1/admin/blacklist/16509', allow: ['PUT', 'DELETE'], admin },
  { path: '/healthz', allow: ['GET', 'HEAD'] },
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE'];

function methodNotAllowed(r, { acct, admin }) {
  const ep = r.pick(ENDPOINTS(r.pick(acct.routes).id, true));
  const method = r.pick(METHODS.filter((m) => !ep.allow.includes(m)));
  const key = ep.admin ? admin.key : acct.key;
  const body = r.chance(0.3) && method !== 'HEAD' ? '{"name":"x"}' : undefined;
  return {
    label: `${method} ${ep.path.replace(/\/\d+$/, '/:id')}`,
    who: ep.admin ? 'admin' : 'plain',
    head: method === 'HEAD',
    bytes: http(method, ep.path, { key, body, headers: body ? JSON_HEADERS : [] }),
    expect: { status: [405], code: method === 'HEAD' ? undefined : 'method_not_allowed', field: method === 'HEAD' ? undefined : null, allow: ep.allow },
  };
}

function isolation(r, { acct, other }) {
  const theirs = r.pick(other.routes);
  const k = acct.key;
  return r.pick([
    () => ({ label: 'GET another account\'s route', bytes: http('GET', `/v1/routes/${theirs.id}`, { key: k }), expect: e404('id') }),
    () => ({ label: 'PUT another account\'s route', bytes: jsonReq('PUT', `/v1/routes/${theirs.id}`, k, '{"name":"stolen","page_a":"https://evil.example/"}'), expect: e404('id') }),
    () => ({ label: 'DELETE another account\'s route', bytes: http('DELETE', `/v1/routes/${theirs.id}`, { key: k }), expect: e404('id') }),
    () => ({
      label: 'list never shows another account\'s routes',
      bytes: http('GET', `/v1/routes?limit=100&page=${r.int(1, 2)}`, { key: k }),
      expect: {
        status: [200],
        check: (a) => {
          const ids = new Set(acct.routes.map((x) => x.id));
          if (a.json?.pagination?.total !== acct.routes.length) return `total ${a.json?.pagination?.total}`;
          return (a.json.data ?? []).every((x) => ids.has(x.id)) ? null : 'a foreign route is listed';
        },
      },
    }),
    () => {
      const method = r.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
      const path = r.pick(['/v1/admin/blacklist', '/v1/admin/blacklist/16509', '/v1/admin/blacklist/abc', '/v1/admin', '/v1/admin/accounts']);
      const body = method === 'POST' || method === 'PUT' ? r.pick(['{"enabled":false}', '{"asn":64999,"provider":"x","category":"hosting"}', '{', '[]']) : undefined;
      return {
        label: `${method} ${path} as a non-admin`,
        bytes: http(method, path, { key: k, body, headers: body ? JSON_HEADERS : [] }),
        expect: { status: [404], code: 'not_found', field: null },
      };
    },
  ])();
}

function invalidParameter(r, { acct, admin }) {
  const k = acct.key;
  const own = r.pick(acct.routes).id;
  const gens = [
    // POST /v1/routes: one bad field on an otherwise valid body.
    () => {
      const [field, values] = r.pick([['name', BAD_NAMES], ['page_a', BAD_URLS], ['page_b', BAD_URLS], ['split_ratio', BAD_RATIOS], ['default_group', BAD_GROUPS], ['intercept_level', BAD_LEVELS]]);
      const v = r.pick(values);
      return { label: `POST /v1/routes ${field}=${v.slice(0, 40)}`, bytes: jsonReq('POST', '/v1/routes', k, withField(ROUTE_BASE, field, v)), expect: p400(field) };
    },
    () => {
      const field = r.pick([...ROUTE_READ_ONLY, ...UNKNOWN_FIELDS]);
      return { label: `POST /v1/routes with ${field}`, bytes: jsonReq('POST', '/v1/routes', k, withField(ROUTE_BASE, field, r.pick(ANY_VALUES))), expect: p400(field) };
    },
    () => {
      const missing = r.pick(['name', 'page_a', 'page_b']);
      const pairs = ROUTE_BASE.filter(([f]) => f !== missing);
      // The first missing one in the order name, page_a, page_b is named.
      return { label: `POST /v1/routes without ${missing}`, bytes: jsonReq('POST', '/v1/routes', k, obj(pairs)), expect: p400(missing) };
    },
    () => {
      const body = r.pick(['[]', '[{"name":"x"}]', '"x"', '1', 'null', 'true', '1.5']);
      const [method, path] = r.pick([['POST', '/v1/routes'], ['PUT', `/v1/routes/${own}`], ['PUT', '/v1/account'], ['POST', '/v1/ip/check'], ['POST', '/v1/ip/update']]);
      return { label: `${method} ${path.replace(/\d+$/, ':id')} body ${body}`, bytes: jsonReq(method, path, k, body), expect: p400('body') };
    },
    // PUT /v1/routes/:own
    () => {
      const [field, values] = r.pick([['name', BAD_NAMES], ['page_a', BAD_URLS], ['page_b', BAD_URLS], ['split_ratio', BAD_RATIOS], ['default_group', BAD_GROUPS], ['intercept_level', BAD_LEVELS], ...[...ROUTE_READ_ONLY, ...UNKNOWN_FIELDS].map((f) => [f, ANY_VALUES])]);
      return { label: `PUT /v1/routes/:id ${field}`, bytes: jsonReq('PUT', `/v1/routes/${own}`, k, obj([[field, r.pick(values)]])), expect: p400(field) };
    },
    () => ({ label: 'PUT /v1/routes/:id {}', bytes: jsonReq('PUT', `/v1/routes/${own}`, k, r.pick(['{}', ' { } '])), expect: p400('body') }),
    () => {
      const id = r.pick(BAD_IDS);
      const method = r.pick(['GET', 'PUT', 'DELETE']);
      const body = method === 'PUT' ? '{"name":"x"}' : undefined;
      return { label: `${method} /v1/routes/${id}`, bytes: http(method, `/v1/routes/${id}`, { key: k, body, headers: body ? JSON_HEADERS : [] }), expect: p400('id') };
    },
    // GET /v1/routes query
    () => {
      const [name, values] = r.pick([['page', BAD_PAGES], ['limit', BAD_LIMITS]]);
      return { label: `GET /v1/routes?${name}=`, bytes: http('GET', `/v1/routes?${name}=${r.pick(values)}`, { key: k }), expect: p400(name) };
    },
    () => {
      const [raw, decoded] = r.pick([['foo=1', 'foo'], ['Page=1', 'Page'], ['LIMIT=5', 'LIMIT'], ['page[]=1', 'page[]'], ['%00=1', '\u0000'], ['sort=id', 'sort'], ['q=x', 'q'], ['%70age=1', 'page'], ['a%20b=1', 'a b']]);
      const expect = decoded === 'page' ? p400('page') : p400(decoded);
      return { label: `GET /v1/routes?${raw}`, bytes: http('GET', `/v1/routes?limit=5&${raw}`, { key: k }), expect: decoded === 'page' ? { status: [200] } : expect };
    },
    // GET /v1/ip/check
    () => {
      const ip = r.pick(BAD_IPS);
      return { label: `GET /v1/ip/check?ip=${ip.slice(0, 20)}`, bytes: http('GET', `/v1/ip/check?ip=${encodeURIComponent(ip)}`, { key: k }), expect: p400('ip') };
    },
    () => ({ label: 'GET /v1/ip/check without ip', bytes: http('GET', r.pick(['/v1/ip/check', '/v1/ip/check?', '/v1/ip/check?level=low']), { key: k }), expect: p400('ip') }),
    () => ({ label: 'GET /v1/ip/check bad level', bytes: http('GET', `/v1/ip/check?ip=8.8.8.8&level=${r.pick(BAD_QUERY_LEVELS)}`, { key: k }), expect: p400('level') }),
    () => {
      const name = r.pick(['ips', 'IP', 'foo', 'levels', 'key']);
      return { label: `GET /v1/ip/check?${name}=`, bytes: http('GET', `/v1/ip/check?ip=8.8.8.8&${name}=1`, { key: k }), expect: p400(name) };
    },
    // POST /v1/ip/check
    () => {
      const ips = r.pick(['"8.8.8.8"', '8', 'null', '{}', 'true', '[]', j(Array(51).fill('8.8.8.8')), '"[]"']);
      return { label: `POST /v1/ip/check ips=${ips.slice(0, 20)}`, bytes: jsonReq('POST', '/v1/ip/check', k, `{"ips":${ips}}`), expect: p400('ips') };
    },
    () => {
      const at = r.int(0, 4);
      const list = Array(5).fill('"8.8.8.8"');
      list[at] = r.pick(['1', 'null', '""', '"x"', '["8.8.8.8"]', '{}', j('1.2.3.4.5'), j(' 8.8.8.8'), 'true', j('9'.repeat(70))]);
      return { label: 'POST /v1/ip/check bad entry', bytes: jsonReq('POST', '/v1/ip/check', k, `{"ips":[${list.join(',')}]}`), expect: p400(`ips[${at}]`) };
    },
    // (An empty level is the default level, as in the query string.)
    () => ({ label: 'POST /v1/ip/check bad level', bytes: jsonReq('POST', '/v1/ip/check', k, `{"ips":["8.8.8.8"],"level":${r.pick(BAD_LEVELS.filter((v) => v !== '""'))}}`), expect: p400('level') }),
    () => {
      const field = r.pick(['ip', 'IPS', 'addresses', 'foo', 'levels']);
      return { label: `POST /v1/ip/check with ${field}`, bytes: jsonReq('POST', '/v1/ip/check', k, `{"ips":["8.8.8.8"],${j(field)}:1}`), expect: p400(field) };
    },
    // PUT /v1/account
    () => ({ label: 'PUT /v1/account bad name', bytes: jsonReq('PUT', '/v1/account', k, `{"name":${r.pick(BAD_NAMES)}}`), expect: p400('name') }),
    () => ({ label: 'PUT /v1/account {}', bytes: jsonReq('PUT', '/v1/account', k, '{}'), expect: p400('name') }),
    () => {
      const field = r.pick([...ACCOUNT_READ_ONLY, ...UNKNOWN_FIELDS.filter((f) => f !== 'name')]);
      return { label: `PUT /v1/account with ${field}`, bytes: jsonReq('PUT', '/v1/account', k, `{"name":"fuzz",${j(field)}:${r.pick(ANY_VALUES)}}`), expect: p400(field) };
    },
    // POST /v1/ip/update: no options at all
    () => {
      const field = r.pick(['force', 'source', 'sources', 'url', 'status', 'now']);
      return { label: `POST /v1/ip/update with ${field}`, bytes: jsonReq('POST', '/v1/ip/update', k, `{${j(field)}:${r.pick(ANY_VALUES)}}`), expect: p400(field) };
    },
    // Admin endpoints, with an admin key.
    () => {
      const [name, values] = r.pick([['page', BAD_PAGES], ['limit', BAD_LIMITS], ['asn', ['1']], ['Q', ['x']], ['foo', ['1']]]);
      return { label: `GET /v1/admin/blacklist?${name}=`, who: 'admin', bytes: http('GET', `/v1/admin/blacklist?${name}=${r.pick(values)}`, { key: admin.key }), expect: p400(name) };
    },
    () => {
      const base = [['asn', String(r.int(4_200_000_000, 4_294_967_295))], ['provider', '"Fuzz Hosting"'], ['category', '"hosting"']];
      const [field, values] = r.pick([
        ['asn', ['"64512"', '0', '-1', '1.5', '4294967296', 'null', 'true', '[]', '{}', '16509']],
        ['provider', ['""', '"   "', '1', 'null', '[]', j('p'.repeat(201))]],
        ['category', ['"x"', '"Hosting"', '1', 'null', '""', '["hosting"]']],
        ['level', ['"x"', '"LOW"', '1', 'null', '""']],
        ['note', ['1', 'null', '[]', j('n'.repeat(501))]],
        ...['enabled', 'builtIn', 'disabled', 'id', 'updated_at', 'colour'].map((f) => [f, ANY_VALUES]),
      ]);
      return { label: `POST /v1/admin/blacklist ${field}`, who: 'admin', bytes: jsonReq('POST', '/v1/admin/blacklist', admin.key, withField(base, field, r.pick(values))), expect: p400(field) };
    },
    () => {
      const asn = r.pick(BAD_ASN_PATHS);
      const method = r.pick(['PUT', 'DELETE']);
      const body = method === 'PUT' ? '{"enabled":true}' : undefined;
      return { label: `${method} /v1/admin/blacklist/${asn}`, who: 'admin', bytes: http(method, `/v1/admin/blacklist/${asn}`, { key: admin.key, body, headers: body ? JSON_HEADERS : [] }), expect: p400('asn') };
    },
    () => {
      const [field, body] = r.pick([
        ['enabled', '{"enabled":"false"}'], ['enabled', '{"enabled":0}'], ['enabled', '{"enabled":null}'], ['enabled', '{}'], ['enabled', '{"note":"x"}'],
        ['note', '{"enabled":true,"note":1}'], ['note', '{"enabled":true,"note":null}'], ['note', `{"enabled":true,"note":${j('n'.repeat(501))}}`],
        ['provider', '{"enabled":true,"provider":"x"}'], ['asn', '{"enabled":true,"asn":1}'],
      ]);
      return { label: `PUT /v1/admin/blacklist/:asn ${field}`, who: 'admin', bytes: jsonReq('PUT', '/v1/admin/blacklist/16509', admin.key, body), expect: p400(field) };
    },
  ];
  const c = r.pick(gens)();
  return { who: 'plain', ...c };
}

function contentType(r, { acct }) {
  const type = r.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/json-patch+json',
    'json', 'application /json', 'text/json', 'application/xml', 'application', '*/*', 'application/javascript', 'text/html; charset=utf-8']);
  const [method, path, body] = r.pick([['PUT', '/v1/account', '{"name":"x"}'], ['POST', '/v1/routes', obj(ROUTE_BASE)], ['POST', '/v1/ip/check', '{"ips":["8.8.8.8"]}'], ['POST', '/v1/ip/update', '{}'], ['PUT', `/v1/routes/${acct.routes[0].id}`, '{"name":"x"}']]);
  return { label: `${method} ${path.replace(/\d+$/, ':id')} as ${type}`, bytes: http(method, path, { key: acct.key, body, headers: [['Content-Type', type]] }), expect: p400('Content-Type') };
}

const BAD_UTF8 = [[0xff], [0xfe, 0xff], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98]];
const MALFORMED_JSON = ['{', '}', '{"name":', '{"name":"x",}', "{'name':'x'}", '{"name":"x"}{"name":"y"}', '{name:"x"}', '[1,2', 'nul', 'tru', 'NaN', '{"a":NaN}', '{"a":Infinity}',
  '{"a":undefined}', '{"a":01}', '{"a":.5}', '{"a":"\\x41"}', '{"a":"\t"}', '{"a":"line\nbreak"}', '\u0000', '{"a":1}//', '/*c*/{}', '{"a":1,,"b":2}', '{"a" 1}', '"unterminated',
  '{"a":-}', '{"a":1e}', '{"a":0x10}', '{"a":+1}', '{"a":"\\u12"}', '{"a":"\\q"}', '{"a":[1,]}', '{"a":tRue}', '{,}', ':', '{"a":1}\u0000', `{"a":${'['.repeat(5)}`];
const POISON = [
  ['{"__proto__":{"admin":true}}', '__proto__'], ['{"constructor":{"name":"x"}}', 'constructor'], ['{"prototype":1}', 'prototype'],
  ['{"name":"x","__proto__":{"quota":1e9}}', '__proto__'], ['{"\\u005f_proto__":{"admin":true}}', '__proto__'], ['{"\\u005F\\u005Fproto\\u005F\\u005F":1}', '__proto__'],
  ['{"constructor":{"prototype":{"admin":true}}}', 'prototype'], ['{"__proto__" :1}', '__proto__'], ['{"__proto__"\n:1}', '__proto__'],
  ['{"ips":[{"__proto__":1}]}', '__proto__'], ['{"a":{"b":{"c":{"__proto__":null}}}}', '__proto__'], ['{"cons\\u0074ructor":1}', 'constructor'],
];

function invalidJson(r, { acct, admin }) {
  const admins = r.chance(0.15);
  const key = admins ? admin.key : acct.key;
  const [method, path] = admins
    ? r.pick([['POST', '/v1/admin/blacklist'], ['PUT', '/v1/admin/blacklist/16509']])
    : r.pick([['POST', '/v1/routes'], ['PUT', `/v1/routes/${acct.routes[0].id}`], ['PUT', '/v1/account'], ['POST', '/v1/ip/check'], ['POST', '/v1/ip/update']]);
  const who = admins ? 'admin' : 'plain';
  const at = `${method} ${path.replace(/\d+$/, ':id')}`;
  return r.pick([
    () => {
      const body = r.pick(MALFORMED_JSON);
      return { who, label: `${at} malformed ${JSON.stringify(body).slice(0, 30)}`, bytes: jsonReq(method, path, key, body), expect: j400() };
    },
    () => {
      const body = r.pick(['', ' ', '\r\n', '\t \n ']);
      // An empty body is "no body" to the optional-body trigger: there it is a valid call.
      if (path === '/v1/ip/update' && body === '') return { who, label: 'PUT /v1/account empty', bytes: jsonReq('PUT', '/v1/account', key, body), expect: j400() };
      return { who, label: `${at} empty`, bytes: jsonReq(method, path, key, body), expect: j400() };
    },
    () => {
      const bytes = r.pick(BAD_UTF8);
      const body = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('b"}')]);
      return { who, label: `${at} invalid UTF-8 ${Buffer.from(bytes).toString('hex')}`, bytes: jsonReq(method, path, key, body), expect: j400() };
    },
    () => {
      const [body, field] = r.pick(POISON);
      return { who, label: `${at} poison ${field}`, bytes: jsonReq(method, path, key, body), expect: j400(field) };
    },
    () => {
      // A \u escape sends the body through the reviver, which recurses: too
      // deep a nesting overflows its stack, still a 400.
      const depth = r.int(25_000, 32_000);
      const body = `{"a":"\\u0041","b":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      return { who, label: `${at} ${depth}-deep with a \\u escape`, bytes: jsonReq(method, path, key, body), expect: j400() };
    },
  ])();
}

function duplicateKeys(r, { acct }) {
  const k = acct.key;
  return r.pick([
    () => ({ label: 'PUT /v1/account name twice, last valid', bytes: jsonReq('PUT', '/v1/account', k, '{"name":5,"name":"fuzz renamed"}'), expect: { status: [200], check: (a) => (a.json?.name === 'fuzz renamed' ? null : `name ${a.json?.name}`) } }),
    () => ({ label: 'PUT /v1/account name twice, last invalid', bytes: jsonReq('PUT', '/v1/account', k, '{"name":"fuzz ok","name":5}'), expect: p400('name') }),
    () => ({ label: 'POST /v1/ip/check ips twice, last valid', bytes: jsonReq('POST', '/v1/ip/check', k, '{"ips":"x","ips":["8.8.8.8"]}'), expect: { status: [200] } }),
    () => ({ label: 'POST /v1/ip/check ips twice, last empty', bytes: jsonReq('POST', '/v1/ip/check', k, '{"ips":["8.8.8.8"],"ips":[]}'), expect: p400('ips') }),
    () => ({ label: 'duplicate keys around a poison key', bytes: jsonReq('PUT', '/v1/account', k, '{"name":"a","__proto__":1,"name":"b"}'), expect: j400('__proto__') }),
    () => ({ label: 'POST /v1/routes split_ratio twice, last invalid', bytes: jsonReq('POST', '/v1/routes', k, `${obj(ROUTE_BASE).slice(0, -1)},"split_ratio":0.5,"split_ratio":7}`), expect: p400('split_ratio') }),
    () => ({ label: 'POST /v1/routes id twice (read-only)', bytes: jsonReq('POST', '/v1/routes', k, `${obj(ROUTE_BASE).slice(0, -1)},"id":1,"id":2}`), expect: p400('id') }),
  ])();
}

function bigJson(r, { acct }) {
  const k = acct.key;
  return r.pick([
    () => ({ label: '10,000-number array', bytes: jsonReq('PUT', '/v1/account', k, `[${Array(10_000).fill(0).join(',')}]`), expect: p400('body') }),
    () => {
      const depth = r.int(20_000, 32_000);
      return { label: `${depth} nested arrays`, bytes: jsonReq('PUT', '/v1/account', k, `${'['.repeat(depth)}${']'.repeat(depth)}`), expect: p400('body') };
    },
    () => {
      const depth = r.int(2_000, 10_000);
      return { label: `${depth} nested objects`, bytes: jsonReq('POST', '/v1/routes', k, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`), expect: p400('a') };
    },
    () => ({ label: '4,000 unknown keys', bytes: jsonReq('PUT', '/v1/account', k, `{${Array.from({ length: 4000 }, (_, i) => `"k${i}":${i}`).join(',')}}`), expect: p400('k0') }),
    () => ({ label: '60 KB name', bytes: jsonReq('PUT', '/v1/account', k, `{"name":${j('n'.repeat(60_000))}}`), expect: p400('name') }),
    () => ({ label: '5,000 addresses', bytes: jsonReq('POST', '/v1/ip/check', k, j({ ips: Array(5000).fill('8.8.8.8') })), expect: p400('ips') }),
    () => {
      // Exactly at the cap: read and judged (a name far too long); one byte more is 413.
      const over = r.chance(0.5);
      const body = `{"name":"${'x'.repeat(65_536 - 11 + (over ? 1 : 0))}"}`;
      return { label: over ? '65,537-byte body' : '65,536-byte body', bytes: jsonReq('PUT', '/v1/account', k, body), expect: over ? e413 : p400('name') };
    },
    () => ({ label: '100,000 nested arrays (200 KB)', bytes: jsonReq('POST', '/v1/ip/check', k, `${'['.repeat(100_000)}${']'.repeat(100_000)}`), expect: e413 }),
    () => ({ label: '100,000 nested arrays, chunked', bytes: http('POST', '/v1/routes', { key: k, headers: JSON_HEADERS, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, chunk: r.int(1000, 30_000) }), expect: e413 }),
  ])();
}

function payloadTooLarge(r, { acct }) {
  const k = acct.key;
  const [method, path] = r.pick([['POST', '/v1/routes'], ['PUT', '/v1/account'], ['POST', '/v1/ip/check'], ['PUT', `/v1/routes/${acct.routes[0].id}`], ['POST', '/v1/ip/update']]);
  const at = `${method} ${path.replace(/\d+$/, ':id')}`;
  return r.pick([
    () => {
      const cl = r.pick([65_537, 70_000, 1_000_000, r.int(65_537, 999_999_999), 999_999_999]);
      return { label: `${at} declares ${cl} bytes, sends none`, bytes: http(method, path, { key: k, headers: JSON_HEADERS, cl: String(cl) }), expect: e413, open: true };
    },
    () => {
      const size = r.int(65_537, 150_000);
      return { label: `${at} sends ${size} bytes`, bytes: jsonReq(method, path, k, `{"name":"${'x'.repeat(size - 12)}"}`), expect: e413 };
    },
    () => {
      const size = r.int(70_000, 300_000);
      return { label: `${at} chunked ${size} bytes`, bytes: http(method, path, { key: k, headers: JSON_HEADERS, body: Buffer.alloc(size, 0x20), chunk: r.int(100, 40_000) }), expect: e413 };
    },
    () => ({ label: `${at} Expect: 100-continue, 1 MB`, bytes: http(method, path, { key: k, headers: [...JSON_HEADERS, ['Expect', '100-continue']], cl: '1000000' }), expect: e413, open: true }),
  ])();
}

function invalidUtf8(r, { acct }) {
  const k = acct.key;
  const bad = Buffer.from(r.pick(BAD_UTF8)).toString('latin1');
  return r.pick([
    () => ({ label: 'raw invalid UTF-8 in a /v1 path', bytes: http('GET', `/v1/routes/${bad}`, { key: k }), expect: { status: [400, 404] } }),
    () => ({ label: 'raw invalid UTF-8 in the ip parameter', bytes: http('GET', `/v1/ip/check?ip=${bad}`, { key: k }), expect: p400('ip') }),
    () => ({ label: 'percent-encoded invalid UTF-8 in the ip parameter', bytes: http('GET', `/v1/ip/check?ip=8.8.8.8${[...Buffer.from(bad, 'latin1')].map((b) => `%${b.toString(16)}`).join('')}`, { key: k }), expect: p400('ip') }),
    () => ({ label: 'invalid UTF-8 in a parameter name', bytes: http('GET', `/v1/routes?${bad}=1`, { key: k }), expect: { status: [400], code: 'invalid_parameter' } }),
    () => ({ label: 'invalid UTF-8 in the key', bytes: http('GET', '/v1/account', { headers: [['Authorization', `Bearer sg_${bad}${bad}`]] }), who: 'none', expect: { status: [401], code: 'unauthorized', field: 'Authorization' } }),
    () => ({ label: 'invalid UTF-8 in a JSON string', bytes: jsonReq('PUT', '/v1/account', k, Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bad, 'latin1'), Buffer.from('"}')])), expect: j400() }),
    () => ({ label: 'invalid UTF-8 in a JSON key', bytes: jsonReq('POST', '/v1/routes', k, Buffer.concat([Buffer.from('{"'), Buffer.from(bad, 'latin1'), Buffer.from('":1}')])), expect: j400() }),
    () => ({ label: 'UTF-16 body', bytes: jsonReq('PUT', '/v1/account', k, Buffer.from('\ufeff{"name":"x"}', 'utf16le')), expect: j400() }),
    () => ({ label: 'invalid UTF-8 in a short link', bytes: http('GET', `/r/${bad}${bad}abcd`), who: 'none', expect: { status: [404] } }),
    () => ({ label: 'invalid UTF-8 in a header value', bytes: http('GET', '/v1/account', { key: k, headers: [['X-Note', bad], ['User-Agent', `fuzz${bad}`]] }), expect: { status: [200] } }),
  ])();
}

/** Raw request heads broken in ways a parser must survive. No key: a tolerated request is a 401. */
function malformedHttp(r) {
  const target = '/v1/account';
  const simple = (text) => Buffer.from(text, 'latin1');
  const cases = [
    ['garbage line', () => simple(`${Array.from({ length: r.int(1, 60) }, () => String.fromCharCode(r.int(33, 126))).join('')}\r\n\r\n`)],
    ['random bytes', () => Buffer.from(Array.from({ length: r.int(1, 400) }, () => r.int(0, 255)))],
    ['no version', () => simple(`GET ${target}\r\nHost: x\r\n\r\n`)],
    ['HTTP/1.0', () => simple(`GET ${target} HTTP/1.0\r\nHost: x\r\n\r\n`)],
    ['HTTP/0.9', () => simple(`GET ${target}\r\n`)],
    ['HTTP/2.0', () => simple(`GET ${target} HTTP/2.0\r\nHost: x\r\n\r\n`)],
    ['HTTP/1.2', () => simple(`GET ${target} HTTP/1.2\r\nHost: x\r\n\r\n`)],
    ['http/1.1 lower case', () => simple(`GET ${target} http/1.1\r\nHost: x\r\n\r\n`)],
    ['lower-case method', () => simple(`get ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['unknown method', () => simple(`${r.pick(['BREW', 'FOO', 'PROPFIND', 'M-SEARCH', 'G\u00c9T'])} ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['10 KB method', () => simple(`${'G'.repeat(10_000)} ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['two spaces', () => simple(`GET  ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['tabs as separators', () => simple(`GET\t${target}\tHTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['LF line ends', () => simple(`GET ${target} HTTP/1.1\nHost: x\n\n`)],
    ['CR line ends', () => simple(`GET ${target} HTTP/1.1\rHost: x\r\r`)],
    ['NUL in the path', () => simple(`GET /v1/acc\u0000ount HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['raw CR LF injection in the path', () => simple(`GET ${target}?x=1\r\nX-Injected: 1 HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['absolute-form target', () => simple(`GET https://evil.example${target} HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['asterisk-form target', () => simple('OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n')],
    ['CONNECT', () => simple('CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n')],
    ['no Host', () => simple(`GET ${target} HTTP/1.1\r\n\r\n`)],
    ['two Hosts', () => simple(`GET ${target} HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n`)],
    ['header without colon', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-Broken\r\n\r\n`)],
    ['space before colon', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-A : 1\r\n\r\n`)],
    ['space in a header name', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\nX A: 1\r\n\r\n`)],
    ['obs-fold', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n`)],
    ['NUL in a header value', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n`)],
    ['control characters in a header value', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-A: \u0001\u0002\u001b[31m\r\n\r\n`)],
    ['empty header name', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n`)],
    ['Content-Length and chunked', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`)],
    ['two different Content-Lengths', () => simple(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\n{}`)],
    ['Content-Length abc', () => simple(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`)],
    ['Content-Length -1', () => simple(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`)],
    ['Content-Length +2', () => simple(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}`)],
    ['Content-Length 0x10', () => simple(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n`)],
    ['Content-Length 1,2', () => simple(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 1,2\r\n\r\n{}`)],
    ['Content-Length of 10+ digits', () => simple(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: ${r.pick(['1000000000', '99999999999999999999', '18446744073709551616'])}\r\n\r\n`)],
    ['Transfer-Encoding gzip', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc`)],
    ['Transfer-Encoding chunked, chunked', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n`)],
    ['chunk size overflow', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nabc\r\n0\r\n\r\n`)],
    ['chunk size not hex', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`)],
    ['chunk extension', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;ext=1\r\n{}\r\n0\r\n\r\n`)],
    ['chunk without CRLF', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n`)],
    ['negative chunk size', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-2\r\n{}\r\n0\r\n\r\n`)],
    ['smuggled second request', () => simple(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /v1/account HTTP/1.1\r\nHost: x\r\n\r\n`)],
    ['header section never ends', () => simple(`GET ${target} HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n`)],
    ['TLS record inside TLS', () => Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00])],
    ['an HTTP/2 preface', () => simple('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')],
    ['raw bytes 0x80-0xff in the path', () => Buffer.concat([simple('GET /v1/'), Buffer.from(Array.from({ length: 20 }, () => r.int(128, 255))), simple(' HTTP/1.1\r\nHost: x\r\n\r\n')])],
  ];
  const [label, make] = r.pick(cases);
  return { label, bytes: make(), expect: REFUSED, giveUpMs: 1500 };
}

function oversizedHeaders(r) {
  const target = '/v1/account';
  const [label, text] = r.pick([
    ['10 KB header value', `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(10_000)}\r\n\r\n`],
    ['60 KB header value', `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(60_000)}\r\n\r\n`],
    ['100 KB header value', `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`],
    ['1 MB header value', `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1_000_000)}\r\n\r\n`],
    ['100 KB Authorization', `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(100_000)}\r\n\r\n`],
    ['200 header lines', `GET ${target} HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 200 }, (_, i) => `X-${i}: v`).join('\r\n')}\r\n\r\n`],
    ['60 header lines', `GET ${target} HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 60 }, (_, i) => `X-${i}: v`).join('\r\n')}\r\n\r\n`],
    ['2,000 cookies', `GET ${target} HTTP/1.1\r\nHost: x\r\nCookie: ${Array.from({ length: 2000 }, (_, i) => `c${i}=v`).join('; ')}\r\n\r\n`],
    ['20 KB URL', `GET /v1/${'u'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['200 KB URL', `GET /v1/${'u'.repeat(200_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['20 KB query', `GET /v1/ip/check?ip=${'1'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['10,000 query parameters', `GET /v1/routes?${Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&')} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ]);
  return { label, bytes: Buffer.from(text, 'latin1'), expect: REFUSED, giveUpMs: 1500 };
}

export const GENERATORS = {
  valid,
  unauthorized,
  not_found: notFound,
  method_not_allowed: methodNotAllowed,
  isolation,
  invalid_parameter: invalidParameter,
  content_type: contentType,
  invalid_json: invalidJson,
  duplicate_keys: duplicateKeys,
  big_json: bigJson,
  payload_too_large: payloadTooLarge,
  invalid_utf8: invalidUtf8,
  malformed_http: malformedHttp,
  oversized_headers: oversizedHeaders,
};
