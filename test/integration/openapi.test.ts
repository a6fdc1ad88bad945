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
import { catalogue, CONSOLE_CODES } from '../../src/errors.js';
import { request, type Response } from '../helpers/client.js';
import { startServer, type TestServer } from '../helpers/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC_FILE = path.join(ROOT, 'docs/openapi.yaml');
const DOC_ID = 'https://splitguard.invalid/openapi.yaml';

// Headers with an API meaning: when the server sends one, the document must declare it.
const WATCHED_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'www-authenticate', 'allow', 'location'];

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
}

function call(method: string, urlPath: string, options: CallOptions = {}): Promise<Response> {
  const key = options.key === undefined ? server.apiKey : options.key ?? undefined;
  return request({ port: server.ports[0], ca: server.ca, method, path: urlPath, key, headers: options.headers, body: options.body });
}

// --- checking a reply against the document ----------------------------------

function integerHeader(name: string, value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new Error(`header ${name} must be an integer, got "${value}"`);
  return Number(value);
}

/** Checks a reply against the response object at `responsePointer` (after $refs). */
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
  const content = (response.content ?? {}) as Obj;
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
    // The catalogue also holds the IP database's and the command line's codes,
    // which never reach an API body, and the web console's, which /v1 never answers.
    const apiCodes = Object.keys(catalogue).filter((c) => !c.startsWith('ipdb_') && !c.startsWith('cli_') && !(CONSOLE_CODES as string[]).includes(c));
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
      [{ 'Content-Type': 'text/plain' }, '{"name":"x"}'],
    ];
    for (const [headers, body] of cases) {
      const reply = await call('PUT', '/v1/account', { headers, body });
      expect(reply.status, body).toBe(400);
      expectOperation(reply, '/v1/account', 'PUT');
      expect(errorBody(reply).code).toBe('invalid_json');
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
