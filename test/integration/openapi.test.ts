// The OpenAPI document against the real server: what `splitguard serve`
// really sends (status, the headers the document declares, the body) must
// validate against docs/openapi.yaml, and every header the API uses that the
// server sends must be declared there. Drift in either direction fails here.
//
// The server is the compiled one (dist/, through bin/splitguard.js; the
// global setup rebuilds a stale dist/), on port 0, one thread, a fresh data
// directory with the cached IP database (test/helpers/server.ts), and its own
// self-signed certificate as the only trusted CA (test/helpers/client.ts).
//
// Two servers: the first keeps the contract's rate limit of 60 a minute (its
// last tests run into it); the second, for routes, the redirect, the IP
// endpoints and the admin blacklist, has no rate limit in the way, believes
// X-Forwarded-For from loopback (so a test chooses the visitor's address),
// and refreshes its database from a loopback node:http server: a first node
// that answers 500, then one serving the installed package's CSV files, so
// the refresh record holds a failed node and an installed one.
//
// A third server, for range feeds and user agents (contract §6a): two feeds
// served on loopback, tor (good) and aws (404), so that GET /v1/ip/database
// and the refresh record show both outcomes, a check result carries a range
// feed and a user-agent verdict, and a route's rule_hits count both rules.
//
// Schemas are checked by Ajv's JSON Schema 2020-12 validator (the dialect of
// OpenAPI 3.1). The whole document is registered under one $id, and every
// schema is compiled as a $ref into it, so the document's own #/components
// references resolve exactly as any OpenAPI tool would resolve them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue, CONSOLE_CODES, sentAsIs } from '../../src/errors.js';
import { runCliJson } from '../helpers/cli.js';
import { request, type Response } from '../helpers/client.js';
import { type FeedServer, startFeedServer, torList } from '../helpers/feed-server.js';
import { NO_RATE_LIMIT, TRUST_LOOPBACK, waitUntil } from '../helpers/routes.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { type SourceServer, startSourceServer } from '../helpers/sources.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC_FILE = path.join(ROOT, 'docs/openapi.yaml');
const DOC_ID = 'https://splitguard.invalid/openapi.yaml';

// Headers with an API meaning: when the server sends one, the document must declare it.
const WATCHED_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'www-authenticate', 'allow', 'location', 'set-cookie'];

// --- the document -----------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const doc = parseYaml(readFileSync(DOC_FILE, 'utf8')) as Obj;

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
const unescapePointer = (s: string) => s.replaceAll('~1', '/').replaceAll('~0', '~');

function at(pointer: string): Json | undefined {
  let node: Json | undefined = doc;
  for (const part of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Obj)[unescapePointer(part)];
  }
  return node;
}

/** Follows a local $ref (and chains of them): the object and its pointer. */
function deref(pointer: string): { node: Obj; pointer: string } {
  for (let hops = 0; hops < 10; hops++) {
    const node = at(pointer);
    if (node === undefined || node === null || typeof node !== 'object' || Array.isArray(node)) {
      throw new Error(`docs/openapi.yaml has no object at ${pointer}`);
    }
    const ref = node.$ref;
    if (typeof ref !== 'string') return { node, pointer };
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are expected, found ${ref}`);
    pointer = ref.slice(1);
  }
  throw new Error(`$ref chain too long at ${pointer}`);
}

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false, allErrors: true });
// The OpenAPI document's own top-level fields, and its specification
// extensions inside Schema Objects: annotations to the validator.
ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs']);
ajv.addVocabulary(['x-http-status']);
ajv.addSchema({ ...(doc as object), $id: DOC_ID });

const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorAt(pointer: string) {
  let v = compiled.get(pointer);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
    compiled.set(pointer, v);
  }
  return v;
}

function assertValid(pointer: string, value: unknown, what: string): void {
  const validate = validatorAt(pointer);
  if (!validate(value)) {
    throw new Error(`${what} does not match ${pointer}:\n${ajv.errorsText(validate.errors, { separator: '\n' })}\nvalue: ${JSON.stringify(value)}`);
  }
}

// --- the server -------------------------------------------------------------

let server: TestServer;

interface CallOptions {
  /** The API key; null sends no Authorization header (default: the bootstrap key). */
  key?: string | null;
  headers?: Record<string, string>;
  body?: string;
  /** A JSON body, sent with Content-Type: application/json. */
  json?: unknown;
}

function callOn(target: TestServer, method: string, urlPath: string, options: CallOptions = {}): Promise<Response> {
  const key = options.key === undefined ? target.apiKey : options.key ?? undefined;
  return request({ port: target.ports[0], ca: target.ca, method, path: urlPath, key, headers: options.headers, body: options.body, json: options.json });
}

function call(method: string, urlPath: string, options: CallOptions = {}): Promise<Response> {
  return callOn(server, method, urlPath, options);
}

// --- checking a reply against the document ----------------------------------

function integerHeader(name: string, value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new Error(`header ${name} must be an integer, got "${value}"`);
  return Number(value);
}

/**
 * Checks a reply against the response object at `responsePointer` (after
 * $refs). A response the document gives no content (204, 302, any answer to
 * HEAD) must have an empty body.
 */
function expectMatches(reply: Response, responsePointer: string): void {
  const { node: response, pointer } = deref(responsePointer);
  const what = `${reply.status} reply (${responsePointer})`;

  // Headers the document declares: required ones present, every present one valid.
  const declared = new Set<string>();
  const headerDefs = (response.headers ?? {}) as Obj;
  for (const name of Object.keys(headerDefs)) {
    declared.add(name.toLowerCase());
    const { node: header, pointer: headerPointer } = deref(`${pointer}/headers/${escapePointer(name)}`);
    const raw = reply.headers[name.toLowerCase()];
    if (raw === undefined) {
      if (header.required === true) throw new Error(`${what} lacks the required header ${name}`);
      continue;
    }
    const text = Array.isArray(raw) ? raw.join(', ') : raw;
    const schema = header.schema as Obj;
    const value = schema.type === 'integer' ? integerHeader(name, text) : text;
    assertValid(`${headerPointer}/schema`, value, `${what} header ${name}`);
  }
  // Headers the server sends that the document does not declare.
  for (const name of WATCHED_HEADERS) {
    if (reply.headers[name] !== undefined && !declared.has(name)) {
      throw new Error(`${what} sends ${name}: ${String(reply.headers[name])}, which docs/openapi.yaml does not declare`);
    }
  }

  // The body, by media type.
  if (response.content === undefined) {
    if (reply.body !== '') throw new Error(`${what} has a body, the document declares none: ${reply.body.slice(0, 200)}`);
    return;
  }
  const content = response.content as Obj;
  const contentType = String(reply.headers['content-type'] ?? '');
  const essence = contentType.split(';')[0].trim().toLowerCase();
  if (!(essence in content)) throw new Error(`${what} has Content-Type "${contentType}", the document allows ${Object.keys(content).join(', ') || 'no body'}`);
  if (essence === 'application/json') {
    expect(contentType.replace(/\s+/g, '').toLowerCase()).toBe('application/json;charset=utf-8');
  }
  const body: unknown = essence === 'application/json' ? JSON.parse(reply.body) : reply.body;
  assertValid(`${pointer}/content/${escapePointer(essence)}/schema`, body, `${what} body`);
}

/** The response declared for an operation and status. */
function operationResponse(urlPath: string, method: string, status: number): string {
  const pointer = `/paths/${escapePointer(urlPath)}/${method.toLowerCase()}/responses/${status}`;
  if (at(pointer) === undefined) throw new Error(`docs/openapi.yaml declares no ${status} for ${method} ${urlPath}`);
  return pointer;
}

function expectOperation(reply: Response, urlPath: string, method: string): void {
  expectMatches(reply, operationResponse(urlPath, method, reply.status));
}

/** expectOperation, then the status and (for errors) the code and field. */
function expectReply(reply: Response, urlPath: string, method: string, status: number, error?: { code: string; field?: string | null }): void {
  expect(reply.status, `${method} ${urlPath}: ${reply.body}`).toBe(status);
  expectOperation(reply, urlPath, method);
  if (error) expect(errorBody(reply)).toMatchObject(error);
}

function errorBody(reply: Response): { error: string; code: string; field: string | null } {
  return JSON.parse(reply.body) as { error: string; code: string; field: string | null };
}

// --- the tests --------------------------------------------------------------

describe('docs/openapi.yaml', () => {
  it('resolves every local $ref', () => {
    const refs: string[] = [];
    const walk = (n: Json) => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n !== null && typeof n === 'object') {
        for (const [k, v] of Object.entries(n)) {
          if (k === '$ref' && typeof v === 'string') refs.push(v);
          else walk(v);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(at(ref.slice(1)), ref).toBeDefined();
  });

  it('lists exactly the API error codes of src/errors.ts, each with its HTTP status', () => {
    const schema = deref('/components/schemas/ErrorCode').node;
    // The catalogue also holds codes that never reach an API body: the command
    // line's (cli_*), the web console's (CONSOLE_CODES), and every server-side
    // one (storage_unusable, ipdb_*): publicError sends any error whose
    // status is not sentAsIs as the one fixed `internal` body and logs the real code.
    const apiCodes = Object.keys(catalogue).filter((c) => {
      const { status } = catalogue[c as keyof typeof catalogue];
      return !c.startsWith('cli_') && !(CONSOLE_CODES as string[]).includes(c) && (sentAsIs(status) || c === 'internal');
    });
    expect([...(schema.enum as string[])].sort()).toEqual(apiCodes.sort());
    const statuses = schema['x-http-status'] as Record<string, number>;
    for (const code of apiCodes) expect(statuses[code], code).toBe(catalogue[code as keyof typeof catalogue].status);
  });

  it('compiles every schema it declares', () => {
    for (const name of Object.keys(doc.components && (doc.components as Obj).schemas ? ((doc.components as Obj).schemas as Obj) : {})) {
      expect(() => validatorAt(`/components/schemas/${name}`), name).not.toThrow();
    }
  });
});

describe('the real server matches docs/openapi.yaml', () => {
  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('GET /healthz: 200', async () => {
    const reply = await call('GET', '/healthz', { key: null });
    expect(reply.status).toBe(200);
    expectOperation(reply, '/healthz', 'GET');
  });

  it('GET /metrics from loopback: 200 text', async () => {
    const reply = await call('GET', '/metrics', { key: null });
    expect(reply.status).toBe(200);
    expectOperation(reply, '/metrics', 'GET');
    expect(reply.body).toContain('splitguard_api_responses_total');
  });

  it('GET /v1/account: 200', async () => {
    const reply = await call('GET', '/v1/account');
    expect(reply.status).toBe(200);
    expectOperation(reply, '/v1/account', 'GET');
    expect(JSON.parse(reply.body)).toMatchObject({ id: 1, name: 'default' });
  });

  it('GET /v1/account: 401 without a key, with an unknown key, with another scheme', async () => {
    for (const options of [{ key: null }, { key: 'sg_not-a-real-key' }, { key: null, headers: { Authorization: 'Basic dXNlcjpwYXNz' } }]) {
      const reply = await call('GET', '/v1/account', options);
      expect(reply.status).toBe(401);
      expectOperation(reply, '/v1/account', 'GET');
      expect(errorBody(reply)).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
    }
  });

  it('PUT /v1/account: 200 with the trimmed new name', async () => {
    const reply = await call('PUT', '/v1/account', { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: '  Marketing team  ' }) });
    expect(reply.status).toBe(200);
    expectOperation(reply, '/v1/account', 'PUT');
    expect(JSON.parse(reply.body)).toMatchObject({ name: 'Marketing team' });
  });

  it('PUT /v1/account: 400 invalid_parameter naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 5 }, 'name'],
      [{}, 'name'],
      [{ name: 'ok', quota: 5 }, 'quota'],
      [{ name: 'ok', colour: 'red' }, 'colour'],
      [['name'], 'body'],
    ];
    for (const [body, field] of cases) {
      const reply = await call('PUT', '/v1/account', { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expectOperation(reply, '/v1/account', 'PUT');
      expect(errorBody(reply)).toMatchObject({ code: 'invalid_parameter', field });
    }
  });

  it('PUT /v1/account: 400 invalid_json', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'Content-Type': 'application/json' }, '{"name":'],
      [{ 'Content-Type': 'application/json' }, ''],
      [{ 'Content-Type': 'application/json' }, '{"name":"x","__proto__":{"admin":true}}'],
      [{}, '{"name"'],
    ];
    for (const [headers, body] of cases) {
      const reply = await call('PUT', '/v1/account', { headers, body });
      expect(reply.status, body).toBe(400);
      expectOperation(reply, '/v1/account', 'PUT');
      expect(errorBody(reply).code).toBe('invalid_json');
    }
  });

  it('PUT /v1/account: 400 invalid_parameter naming Content-Type when it is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const reply = await call('PUT', '/v1/account', { headers: { 'Content-Type': type }, body: '{"name":"x"}' });
      expect(reply.status, type).toBe(400);
      expectOperation(reply, '/v1/account', 'PUT');
      expect(errorBody(reply)).toMatchObject({ code: 'invalid_parameter', field: 'Content-Type' });
    }
  });

  it('PUT /v1/account: 413 over 64 KiB', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(64 * 1024) });
    const reply = await call('PUT', '/v1/account', { headers: { 'Content-Type': 'application/json' }, body });
    expect(reply.status).toBe(413);
    expectOperation(reply, '/v1/account', 'PUT');
    expect(errorBody(reply)).toMatchObject({ code: 'payload_too_large', field: null });
  });

  it('an unknown /v1 path: 404 as components/responses/NotFound', async () => {
    const reply = await call('GET', '/v1/no-such-thing');
    expect(reply.status).toBe(404);
    expectMatches(reply, '/components/responses/NotFound');
  });

  it('DELETE /v1/account: 405 as components/responses/MethodNotAllowed, with Allow', async () => {
    const reply = await call('DELETE', '/v1/account');
    expect(reply.status).toBe(405);
    expectMatches(reply, '/components/responses/MethodNotAllowed');
    expect(reply.headers.allow).toBe('GET, PUT');
  });

  it('the account limit: 429 with RateLimit-* and Retry-After', async () => {
    let reply: Response | undefined;
    for (let i = 0; i < 80; i++) {
      reply = await call('GET', '/v1/account');
      if (reply.status === 429) break;
      expect(reply.status).toBe(200);
    }
    expect(reply!.status).toBe(429);
    expectOperation(reply!, '/v1/account', 'GET');
    expect(reply!.headers['ratelimit-remaining']).toBe('0');
    expect(reply!.headers['ratelimit-limit']).toBe('60');
    expect(errorBody(reply!).code).toBe('rate_limited');
  });

  it('the failed-authentication limit: 429 with Retry-After and no RateLimit-*', async () => {
    let reply: Response | undefined;
    for (let i = 0; i < 40; i++) {
      reply = await call('GET', '/v1/account', { key: `sg_wrong${i}` });
      if (reply.status === 429) break;
      expect(reply.status).toBe(401);
    }
    expect(reply!.status).toBe(429);
    expectOperation(reply!, '/v1/account', 'GET');
    expect(reply!.headers['ratelimit-limit']).toBeUndefined();
    expect(errorBody(reply!).code).toBe('rate_limited');
  });

  it('logs no API key', () => {
    expect(server.logs().length).toBeGreaterThan(0);
    expect(JSON.stringify(server.logs())).not.toContain(server.apiKey);
  });
});

describe('routes, the redirect, the IP endpoints and the admin blacklist match docs/openapi.yaml', () => {
  const PAGE_A = 'https://a.example.com/landing';
  const PAGE_B = 'https://b.example.com/landing?src=sg#top';
  // Classified by the test database (src/quality/lists/golden.json): Google,
  // a blacklisted ASN; AT&T, a listed carrier; Cloud Telecom, whose "cloud"
  // keyword the carrier word "telecom" cancels; a private address, not found.
  const DATACENTER = '8.8.8.8';
  const CARRIER = '12.0.0.1';
  const WHITELISTED = '189.127.128.1';
  const PRIVATE = '10.0.0.1';

  let sources: SourceServer;
  let srv: TestServer;
  /** A second account, not an admin, with a quota of one route. */
  let other: { account_id: number; api_key: string };
  const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

  beforeAll(async () => {
    sources = await startSourceServer();
    srv = await startServer({
      env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK, SPLITGUARD_IPDB_SOURCES: `${sources.node('status500')},${sources.node('valid')}` },
    });
    other = await runCliJson(['account', 'create', '--name', 'other', '--quota', '1'], srv.dataDir);
  });

  afterAll(async () => {
    await srv?.close();
    await sources?.close();
  });

  // First, so that the refresh runs while the other tests do; the last test waits for its record.
  it('POST /v1/ip/update: 400 for a field, 202 started, 202 running for another account, 429 refresh_too_soon', async () => {
    expectReply(await on('POST', '/v1/ip/update', { json: { force: true } }), '/v1/ip/update', 'POST', 400, { code: 'invalid_parameter', field: 'force' });
    expectReply(await on('POST', '/v1/ip/update', { json: [] }), '/v1/ip/update', 'POST', 400, { code: 'invalid_parameter', field: 'body' });

    const started = await on('POST', '/v1/ip/update');
    expectReply(started, '/v1/ip/update', 'POST', 202);
    expect(started.json.status).toBe('started');
    expect(Date.parse(started.json.next_allowed_at) - Date.parse(started.json.started_at)).toBe(3_600_000);

    // The trigger claims the running slot in shared memory at once, so the
    // status shows the refresh running before the build finishes.
    const { value: status } = await waitUntil(() => on('GET', '/v1/ip/database'), (r) => r.json.refresh_running === true, 5000);
    expectReply(status, '/v1/ip/database', 'GET', 200);
    expect(status.json).toMatchObject({ available: true, last_refresh: null });

    const joined = await on('POST', '/v1/ip/update', { key: other.api_key, json: {} });
    expectReply(joined, '/v1/ip/update', 'POST', 202);
    expect(joined.json.status).toBe('running');
    expect(Math.abs(Date.parse(joined.json.started_at) - Date.parse(started.json.started_at))).toBeLessThan(1000);

    const again = await on('POST', '/v1/ip/update');
    expectReply(again, '/v1/ip/update', 'POST', 429, { code: 'refresh_too_soon', field: null });
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(3500);
  });

  it('every new endpoint: 401 without a key', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/v1/routes', '/v1/routes'],
      ['POST', '/v1/routes', '/v1/routes'],
      ['DELETE', '/v1/routes/1', '/v1/routes/{id}'],
      ['GET', '/v1/ip/check?ip=8.8.8.8', '/v1/ip/check'],
      ['POST', '/v1/ip/update', '/v1/ip/update'],
      ['GET', '/v1/ip/database', '/v1/ip/database'],
      ['GET', '/v1/admin/blacklist', '/v1/admin/blacklist'],
    ];
    for (const [method, urlPath, template] of cases) {
      expectReply(await on(method, urlPath, { key: null }), template, method, 401, { code: 'unauthorized', field: 'Authorization' });
    }
  });

  it('POST /v1/routes: 201 with Location; 400 naming the field; 413', async () => {
    const created = await on('POST', '/v1/routes', { json: { name: '  Spring promo ', page_a: PAGE_A, page_b: PAGE_B } });
    expectReply(created, '/v1/routes', 'POST', 201);
    expect(created.headers.location).toBe(`/v1/routes/${created.json.id}`);
    expect(created.json).toMatchObject({ name: 'Spring promo', split_ratio: 0.5, default_group: 'a', intercept_level: 'medium', status: 'active' });

    const valid = { name: 'x', page_a: PAGE_A, page_b: PAGE_B };
    const cases: [unknown, string][] = [
      [{ page_a: PAGE_A, page_b: PAGE_B }, 'name'],
      [{ ...valid, name: 'x'.repeat(201) }, 'name'],
      [{ ...valid, page_a: 'javascript:alert(1)' }, 'page_a'],
      [{ ...valid, page_b: '/relative' }, 'page_b'],
      [{ ...valid, page_a: 'https://user:pass@example.com/' }, 'page_a'],
      [{ ...valid, page_a: `https://example.com/${'x'.repeat(2048)}` }, 'page_a'],
      [{ ...valid, split_ratio: 1.5 }, 'split_ratio'],
      [{ ...valid, default_group: 'c' }, 'default_group'],
      [{ ...valid, intercept_level: 'max' }, 'intercept_level'],
      [{ ...valid, code: 'abcdefgh' }, 'code'],
      [{ ...valid, colour: 'red' }, 'colour'],
      [['x'], 'body'],
    ];
    for (const [json, field] of cases) {
      expectReply(await on('POST', '/v1/routes', { json }), '/v1/routes', 'POST', 400, { code: 'invalid_parameter', field });
    }
    const form = await on('POST', '/v1/routes', { headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(valid) });
    expectReply(form, '/v1/routes', 'POST', 400, { code: 'invalid_parameter', field: 'Content-Type' });
    const broken = await on('POST', '/v1/routes', { headers: { 'Content-Type': 'application/json' }, body: '{"name":' });
    expectReply(broken, '/v1/routes', 'POST', 400, { code: 'invalid_json' });
    const big = await on('POST', '/v1/routes', { json: { ...valid, name: 'x'.repeat(70_000) } });
    expectReply(big, '/v1/routes', 'POST', 413, { code: 'payload_too_large', field: null });
  });

  it('POST /v1/routes: 403 quota_exceeded once the lifetime quota is used, even after a delete', async () => {
    const first = await on('POST', '/v1/routes', { key: other.api_key, json: { name: 'only one', page_a: PAGE_A, page_b: PAGE_B } });
    expectReply(first, '/v1/routes', 'POST', 201);
    expectReply(await on('DELETE', `/v1/routes/${first.json.id}`, { key: other.api_key }), '/v1/routes/{id}', 'DELETE', 204);
    const second = await on('POST', '/v1/routes', { key: other.api_key, json: { name: 'a second', page_a: PAGE_A, page_b: PAGE_B } });
    expectReply(second, '/v1/routes', 'POST', 403, { code: 'quota_exceeded', field: null });
  });

  it('GET /v1/routes: 200 newest first with pagination; 400 naming the parameter', async () => {
    await on('POST', '/v1/routes', { json: { name: 'newer', page_a: PAGE_A, page_b: PAGE_B } });
    const list = await on('GET', '/v1/routes?page=1&limit=20');
    expectReply(list, '/v1/routes', 'GET', 200);
    expect(list.json.data.map((r: { name: string }) => r.name).slice(0, 2)).toEqual(['newer', 'Spring promo']);
    expect(list.json.pagination).toEqual({ page: 1, limit: 20, total: 2, pages: 1 });

    const past = await on('GET', '/v1/routes?page=9&limit=1');
    expectReply(past, '/v1/routes', 'GET', 200);
    expect(past.json).toEqual({ data: [], pagination: { page: 9, limit: 1, total: 2, pages: 2 } });

    for (const [query, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['page=0', 'page'], ['page=x', 'page'], ['sort=name', 'sort']]) {
      expectReply(await on('GET', `/v1/routes?${query}`), '/v1/routes', 'GET', 400, { code: 'invalid_parameter', field });
    }
  });

  it('GET, PUT and DELETE /v1/routes/{id}: 200, 204, and 400 / 404 (another account\'s route too)', async () => {
    const { json: route } = await on('POST', '/v1/routes', { json: { name: 'to change', page_a: PAGE_A, page_b: PAGE_B } });
    const path = `/v1/routes/${route.id}`;

    const detail = await on('GET', path);
    expectReply(detail, '/v1/routes/{id}', 'GET', 200);
    expect(detail.json.stats.clicks.total).toBe(0);

    const updated = await on('PUT', path, { json: { split_ratio: 0.25, intercept_level: 'high' } });
    expectReply(updated, '/v1/routes/{id}', 'PUT', 200);
    expect(updated.json).toMatchObject({ name: 'to change', split_ratio: 0.25, intercept_level: 'high', code: route.code });

    for (const [json, field] of [[{}, 'body'], [{ id: 5 }, 'id'], [{ short_url: 'x' }, 'short_url'], [{ name: '' }, 'name'], [{ page_b: 'data:text/html,hi' }, 'page_b']] as const) {
      expectReply(await on('PUT', path, { json }), '/v1/routes/{id}', 'PUT', 400, { code: 'invalid_parameter', field });
    }
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const json = method === 'PUT' ? { name: 'x' } : undefined;
      expectReply(await on(method, '/v1/routes/abc', { json }), '/v1/routes/{id}', method, 400, { code: 'invalid_parameter', field: 'id' });
      expectReply(await on(method, '/v1/routes/999999', { json }), '/v1/routes/{id}', method, 404, { code: 'not_found', field: 'id' });
      expectReply(await on(method, path, { json, key: other.api_key }), '/v1/routes/{id}', method, 404, { code: 'not_found', field: 'id' });
    }

    expectReply(await on('DELETE', path), '/v1/routes/{id}', 'DELETE', 204);
    expectReply(await on('GET', path), '/v1/routes/{id}', 'GET', 404, { code: 'not_found', field: 'id' });
    expectReply(await on('DELETE', path), '/v1/routes/{id}', 'DELETE', 404, { code: 'not_found', field: 'id' });
  });

  it('GET|HEAD /r/{code}: 302 split or intercepted, 404 for an unknown code; GET visits show in the stats', async () => {
    const { json: route } = await on('POST', '/v1/routes', {
      json: { name: 'redirect', page_a: PAGE_A, page_b: PAGE_B, split_ratio: 1, default_group: 'b', intercept_level: 'medium' },
    });
    const visit = (method: string, code: string, headers: Record<string, string>, query = '') =>
      request({ port: srv.ports[0], ca: srv.ca, method, path: `/r/${code}${query}`, headers });

    // A real visitor: page A (split_ratio 1), with the link's query, and a new visitor cookie.
    const real = await visit('GET', route.code, { 'X-Forwarded-For': CARRIER }, '?utm=x');
    expect(real.status).toBe(302);
    expectOperation(real, '/r/{code}', 'GET');
    expect(real.headers.location).toBe(`${PAGE_A}?utm=x`);
    const cookie = String(real.headers['set-cookie']).split(';')[0];

    // The same visitor again: no new cookie.
    const returning = await visit('GET', route.code, { 'X-Forwarded-For': CARRIER, Cookie: cookie });
    expect(returning.status).toBe(302);
    expectOperation(returning, '/r/{code}', 'GET');
    expect(returning.headers['set-cookie']).toBeUndefined();

    // A data-center address: intercepted, the default group's page, the query before the fragment, no cookie.
    const intercepted = await visit('GET', route.code, { 'X-Forwarded-For': DATACENTER }, '?utm=x');
    expect(intercepted.status).toBe(302);
    expectOperation(intercepted, '/r/{code}', 'GET');
    expect(intercepted.headers.location).toBe('https://b.example.com/landing?src=sg&utm=x#top');
    expect(intercepted.headers['set-cookie']).toBeUndefined();

    // HEAD: the same answer without a body, and no click.
    const head = await visit('HEAD', route.code, { 'X-Forwarded-For': CARRIER, Cookie: cookie });
    expect(head.status).toBe(302);
    expectOperation(head, '/r/{code}', 'HEAD');

    for (const method of ['GET', 'HEAD']) {
      const unknown = await visit(method, 'zzzzzzzz', {});
      expect(unknown.status).toBe(404);
      expectOperation(unknown, '/r/{code}', method);
      expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    }

    const { value: detail } = await waitUntil(() => on('GET', `/v1/routes/${route.id}`), (r) => r.json.stats.clicks.total >= 3, 5000);
    expectReply(detail, '/v1/routes/{id}', 'GET', 200);
    expect(detail.json.stats).toMatchObject({
      clicks: { total: 3 },
      groups: { a: 2, b: 0 },
      intercepted: 1,
      rule_hits: { asn_blacklist: 1, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0, range_feed: 0, crawler: 0 },
    });

    await on('DELETE', `/v1/routes/${route.id}`);
    const gone = await visit('GET', route.code, {});
    expect(gone.status).toBe(404);
    expectOperation(gone, '/r/{code}', 'GET');
  });

  it('GET /v1/ip/check: 200 for each kind of address; 400 naming the parameter', async () => {
    const one = async (query: string) => {
      const reply = await on('GET', `/v1/ip/check?${query}`);
      expectReply(reply, '/v1/ip/check', 'GET', 200);
      return reply.json;
    };
    expect(await one(`ip=${DATACENTER}`)).toMatchObject({ found: true, asn: 15169, category: 'datacenter', level: 'medium', intercepted: true, signals: { asn_blacklist: true } });
    expect(await one(`ip=::ffff:${DATACENTER}&level=low`)).toMatchObject({ ip: `::ffff:${DATACENTER}`, version: 4, level: 'low', intercepted: true });
    expect(await one(`ip=${WHITELISTED}&level=high`)).toMatchObject({
      category: 'carrier',
      signals: { asn_blacklist: false, org_keyword: 'cloud', carrier_whitelist: 'telecom' },
      intercept: { low: false, medium: false, high: false },
    });
    expect(await one(`ip=${PRIVATE}&level=off`)).toMatchObject({ found: false, asn: null, range: null, category: 'unknown', intercepted: false });
    expect(await one('ip=2a00:1450:4001::1')).toMatchObject({ version: 6, found: true, asn: 15169 });

    for (const [query, field] of [['ip=nope', 'ip'], ['', 'ip'], ['ip=', 'ip'], ['ip=8.8.8.8&level=max', 'level'], ['ip=8.8.8.8&ips=1', 'ips']]) {
      expectReply(await on('GET', `/v1/ip/check?${query}`), '/v1/ip/check', 'GET', 400, { code: 'invalid_parameter', field });
    }
  });

  it('POST /v1/ip/check: 200 with one result per address in order; 400 naming ips or ips[n]', async () => {
    const batch = await on('POST', '/v1/ip/check', { json: { ips: [DATACENTER, CARRIER, PRIVATE], level: 'high' } });
    expectReply(batch, '/v1/ip/check', 'POST', 200);
    expect(batch.json.results.map((r: { ip: string; intercepted: boolean }) => [r.ip, r.intercepted])).toEqual([
      [DATACENTER, true],
      [CARRIER, false],
      [PRIVATE, false],
    ]);

    const cases: [unknown, string][] = [
      [{ ips: [DATACENTER, CARRIER, PRIVATE, 'nope'] }, 'ips[3]'],
      [{ ips: [DATACENTER, 5] }, 'ips[1]'],
      [{ ips: [] }, 'ips'],
      [{ ips: Array(51).fill(DATACENTER) }, 'ips'],
      [{ ips: DATACENTER }, 'ips'],
      [{}, 'ips'],
      [{ ips: [DATACENTER], level: 'max' }, 'level'],
      [{ ips: [DATACENTER], ip: DATACENTER }, 'ip'],
    ];
    for (const [json, field] of cases) {
      expectReply(await on('POST', '/v1/ip/check', { json }), '/v1/ip/check', 'POST', 400, { code: 'invalid_parameter', field });
    }
  });

  it('/v1/admin/blacklist: search, add, disable, remove, and their 400 / 404', async () => {
    const list = await on('GET', '/v1/admin/blacklist?q=amazon&page=1&limit=2');
    expectReply(list, '/v1/admin/blacklist', 'GET', 200);
    expect(list.json.data).toHaveLength(2);
    expect(list.json.pagination.total).toBeGreaterThanOrEqual(2);
    const byAsn = await on('GET', '/v1/admin/blacklist?q=AS15169');
    expectReply(byAsn, '/v1/admin/blacklist', 'GET', 200);
    expect(byAsn.json.data[0]).toMatchObject({ asn: 15169, built_in: true, enabled: true, note: null, updated_at: null });
    expectReply(await on('GET', '/v1/admin/blacklist?limit=500'), '/v1/admin/blacklist', 'GET', 400, { code: 'invalid_parameter', field: 'limit' });

    const entry = { asn: 64500, provider: 'Example Hosting', category: 'hosting', note: 'seen in logs' };
    const added = await on('POST', '/v1/admin/blacklist', { json: entry });
    expectReply(added, '/v1/admin/blacklist', 'POST', 201);
    expect(added.json).toEqual({ ...entry, level: 'low', built_in: false, enabled: true, source: null, updated_at: added.json.updated_at });
    for (const [json, field] of [[entry, 'asn'], [{ ...entry, asn: 15169 }, 'asn'], [{ ...entry, asn: 64501, category: 'isp' }, 'category'], [{ ...entry, asn: 64501, admin: true }, 'admin']] as const) {
      expectReply(await on('POST', '/v1/admin/blacklist', { json }), '/v1/admin/blacklist', 'POST', 400, { code: 'invalid_parameter', field });
    }

    const disabled = await on('PUT', '/v1/admin/blacklist/AS64500', { json: { enabled: false, note: 'paused' } });
    expectReply(disabled, '/v1/admin/blacklist/{asn}', 'PUT', 200);
    expect(disabled.json).toMatchObject({ asn: 64500, enabled: false, note: 'paused' });
    const builtIn = await on('PUT', '/v1/admin/blacklist/13335', { json: { enabled: true } });
    expectReply(builtIn, '/v1/admin/blacklist/{asn}', 'PUT', 200);
    expect(builtIn.json).toMatchObject({ asn: 13335, built_in: true, enabled: true });
    expectReply(await on('PUT', '/v1/admin/blacklist/64999', { json: { enabled: false } }), '/v1/admin/blacklist/{asn}', 'PUT', 404, { code: 'not_found', field: null });
    expectReply(await on('PUT', '/v1/admin/blacklist/abc', { json: { enabled: false } }), '/v1/admin/blacklist/{asn}', 'PUT', 400, { code: 'invalid_parameter', field: 'asn' });
    expectReply(await on('PUT', '/v1/admin/blacklist/64500', { json: {} }), '/v1/admin/blacklist/{asn}', 'PUT', 400, { code: 'invalid_parameter', field: 'enabled' });

    expectReply(await on('DELETE', '/v1/admin/blacklist/64500'), '/v1/admin/blacklist/{asn}', 'DELETE', 204);
    expectReply(await on('DELETE', '/v1/admin/blacklist/64500'), '/v1/admin/blacklist/{asn}', 'DELETE', 404, { code: 'not_found', field: null });
    expectReply(await on('DELETE', '/v1/admin/blacklist/13335'), '/v1/admin/blacklist/{asn}', 'DELETE', 400, { code: 'invalid_parameter', field: 'asn' });
  });

  it('/v1/admin/blacklist: 404 for every method to an account that is not an admin', async () => {
    const cases: [string, string, string, unknown][] = [
      ['GET', '/v1/admin/blacklist?limit=500', '/v1/admin/blacklist', undefined],
      ['POST', '/v1/admin/blacklist', '/v1/admin/blacklist', { asn: 64502, provider: 'x', category: 'hosting' }],
      ['PUT', '/v1/admin/blacklist/15169', '/v1/admin/blacklist/{asn}', { enabled: false }],
      ['DELETE', '/v1/admin/blacklist/15169', '/v1/admin/blacklist/{asn}', undefined],
    ];
    for (const [method, urlPath, template, json] of cases) {
      expectReply(await on(method, urlPath, { key: other.api_key, json }), template, method, 404, { code: 'not_found', field: null });
    }
  });

  it('GET /v1/ip/database after the refresh: 200 with the record of both nodes', async () => {
    const { value: reply } = await waitUntil(() => on('GET', '/v1/ip/database'), (r) => r.json.refresh_running === false && r.json.last_refresh !== null, 30_000, 100);
    expectReply(reply, '/v1/ip/database', 'GET', 200);
    expect(reply.json.last_refresh).toMatchObject({ trigger: `api (account ${srv.accountId})`, outcome: 'updated', error: null });
    expect(reply.json.last_refresh.nodes.map((n: { outcome: string }) => n.outcome)).toEqual(['failed', 'updated']);
    expect(reply.json.last_refresh.nodes[0].error).toMatch(/500/);
    expect(reply.json.source).toBe(reply.json.last_refresh.source);
  }, 40_000);
});

describe('range feeds, user agents and their rule hits match docs/openapi.yaml', () => {
  // Deutsche Telekom, a listed carrier: a Tor exit once the served list names it.
  const TOR_EXIT = '80.187.0.1';
  const CARRIER = '12.0.0.1';
  const CURL = 'curl/8.5.0';

  let feeds: FeedServer;
  let srv: TestServer;
  const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

  beforeAll(async () => {
    feeds = await startFeedServer();
    feeds.routes.set('/tor', { body: torList(['185.220.101.1', TOR_EXIT]) });
    srv = await startServer({
      env: {
        ...NO_RATE_LIMIT,
        ...TRUST_LOOPBACK,
        SPLITGUARD_IPDB_SOURCES: 'package:',
        SPLITGUARD_FEEDS: 'tor,aws',
        SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/tor')};aws=${feeds.url('/aws-gone.json')}`,
      },
    });
  });

  afterAll(async () => {
    await srv?.close();
    await feeds?.close();
  });

  it('GET /v1/ip/database: 200 with every configured feed, before and after a refresh that fetched them', async () => {
    const before = await on('GET', '/v1/ip/database');
    expectReply(before, '/v1/ip/database', 'GET', 200);
    expect(before.json.feeds).toEqual([
      { name: 'tor', label: 'tor', version: expect.stringMatching(/^snapshot /), fetched_at: expect.any(String), ranges: expect.any(Number), last_attempt_at: null, last_outcome: null, last_error: null, next_refresh_at: null },
      { name: 'aws', label: 'cloud', version: expect.stringMatching(/^snapshot /), fetched_at: expect.any(String), ranges: expect.any(Number), last_attempt_at: null, last_outcome: null, last_error: null, next_refresh_at: null },
    ]);

    expectReply(await on('POST', '/v1/ip/update'), '/v1/ip/update', 'POST', 202);
    const { value: after } = await waitUntil(
      () => on('GET', '/v1/ip/database'),
      (r) => r.json.refresh_running === false && r.json.last_refresh !== null && r.json.feeds[0].ranges === 2,
      60_000,
      100,
    );
    expectReply(after, '/v1/ip/database', 'GET', 200);
    const [tor, aws] = after.json.feeds;
    expect(tor).toMatchObject({ name: 'tor', version: expect.stringMatching(/^[0-9a-f]{12}$/), ranges: 2, last_outcome: 'updated', last_error: null });
    expect(Date.parse(tor.next_refresh_at) - Date.parse(tor.fetched_at)).toBe(3_600_000);
    expect(aws).toMatchObject({ name: 'aws', version: expect.stringMatching(/^snapshot /), last_outcome: 'failed', last_error: expect.stringMatching(/aws-gone\.json: .*HTTP 404$/) });
    expect(after.json.last_refresh.feeds).toEqual([
      { feed: 'tor', outcome: 'updated', source: feeds.url('/tor'), error: null, ms: expect.any(Number) },
      { feed: 'aws', outcome: 'failed', source: null, error: aws.last_error, ms: expect.any(Number) },
    ]);
  }, 90_000);

  it('GET /v1/ip/check: signals.range_feed, and signals.user_agent with ua; 400 naming ua', async () => {
    const tor = await on('GET', `/v1/ip/check?ip=${TOR_EXIT}&level=low&ua=${encodeURIComponent(CURL)}`);
    expectReply(tor, '/v1/ip/check', 'GET', 200);
    expect(tor.json).toMatchObject({
      found: true,
      category: 'vpn_proxy',
      signals: { range_feed: { feed: 'tor', label: 'tor' }, carrier_whitelist: null, user_agent: { crawler: true, match: 'curl' } },
      intercepted: true,
    });

    const plain = await on('GET', `/v1/ip/check?ip=${CARRIER}`);
    expectReply(plain, '/v1/ip/check', 'GET', 200);
    expect(plain.json.signals).toMatchObject({ range_feed: null, user_agent: null });
    expect(plain.json.intercept).toEqual({ low: false, medium: false, high: false });

    // An empty user agent: no crawler, but intercepted at high.
    const empty = await on('GET', `/v1/ip/check?ip=${CARRIER}&ua=`);
    expectReply(empty, '/v1/ip/check', 'GET', 200);
    expect(empty.json.signals.user_agent).toEqual({ crawler: false, match: null });
    expect(empty.json.intercept).toEqual({ low: false, medium: false, high: true });

    const person = await on('GET', `/v1/ip/check?ip=${CARRIER}&ua=${encodeURIComponent('Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')}`);
    expectReply(person, '/v1/ip/check', 'GET', 200);
    expect(person.json.signals.user_agent).toEqual({ crawler: false, match: null });

    const longest = await on('GET', `/v1/ip/check?ip=${CARRIER}&ua=${'a'.repeat(1024)}`);
    expectReply(longest, '/v1/ip/check', 'GET', 200);
    for (const query of [`ip=${CARRIER}&ua=${'a'.repeat(1025)}`, `ip=${CARRIER}&ua=a&ua=b`]) {
      expectReply(await on('GET', `/v1/ip/check?${query}`), '/v1/ip/check', 'GET', 400, { code: 'invalid_parameter', field: 'ua' });
    }
  });

  it('POST /v1/ip/check: user_agent is judged for every address; 400 naming user_agent', async () => {
    const batch = await on('POST', '/v1/ip/check', { json: { ips: [TOR_EXIT, CARRIER], user_agent: 'facebookexternalhit/1.1' } });
    expectReply(batch, '/v1/ip/check', 'POST', 200);
    expect(batch.json.results.map((r: { signals: unknown }) => r.signals)).toMatchObject([
      { range_feed: { feed: 'tor', label: 'tor' }, user_agent: { crawler: true, match: 'facebookexternalhit' } },
      { range_feed: null, user_agent: { crawler: true, match: 'facebookexternalhit' } },
    ]);
    const without = await on('POST', '/v1/ip/check', { json: { ips: [CARRIER] } });
    expectReply(without, '/v1/ip/check', 'POST', 200);
    expect(without.json.results[0].signals.user_agent).toBeNull();

    for (const user_agent of [null, 5, 'a'.repeat(1025)]) {
      expectReply(await on('POST', '/v1/ip/check', { json: { ips: [CARRIER], user_agent } }), '/v1/ip/check', 'POST', 400, { code: 'invalid_parameter', field: 'user_agent' });
    }
  });

  it('GET /v1/routes/{id}: rule_hits counts range_feed and crawler', async () => {
    const created = await on('POST', '/v1/routes', { json: { name: 'feeds', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/', intercept_level: 'low' } });
    expectReply(created, '/v1/routes', 'POST', 201);
    const visit = (forwardedFor: string, userAgent: string) =>
      request({ port: srv.ports[0], ca: srv.ca, path: `/r/${created.json.code}`, headers: { 'X-Forwarded-For': forwardedFor, 'User-Agent': userAgent } });
    expect((await visit(TOR_EXIT, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')).status).toBe(302);
    expect((await visit(CARRIER, CURL)).status).toBe(302);
    const { value: detail } = await waitUntil(() => on('GET', `/v1/routes/${created.json.id}`), (r) => r.json.stats.clicks.total >= 2, 5000);
    expectReply(detail, '/v1/routes/{id}', 'GET', 200);
    expect(detail.json.stats).toMatchObject({
      intercepted: 2,
      rule_hits: { asn_blacklist: 0, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0, range_feed: 1, crawler: 1 },
    });
  });
});
