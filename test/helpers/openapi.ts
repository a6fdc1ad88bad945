// docs/openapi.yaml as the judge of what the real server sends: the parsed
// document, a validator for any schema in it, and the checks the
// conformance tests (test/integration/openapi/) run on every reply: status,
// the headers the document declares (and none it does not, among those with
// an API meaning), and the body by media type.
//
// Schemas are checked by Ajv's JSON Schema 2020-12 validator (the dialect of
// OpenAPI 3.1). The whole document is registered under one $id, and every
// schema is compiled as a $ref into it, so the document's own #/components
// references resolve exactly as any OpenAPI tool would resolve them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { expect } from 'vitest';
import { request, type Response } from './client.js';
import { ROOT } from './ipdb-cache.js';
import type { TestServer } from './server.js';

const DOC_FILE = path.join(ROOT, 'docs/openapi.yaml');
const DOC_ID = 'https://splitguard.invalid/openapi.yaml';

// Headers with an API meaning: when the server sends one, the document must declare it.
const WATCHED_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'www-authenticate', 'allow', 'location', 'set-cookie'];

// --- the document -----------------------------------------------------------

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = { [k: string]: Json };

/** The parsed document; nothing changes it. */
export const doc = parseYaml(readFileSync(DOC_FILE, 'utf8')) as Obj;

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
const unescapePointer = (s: string) => s.replaceAll('~1', '/').replaceAll('~0', '~');

/** The node at a JSON pointer into the document, or undefined. */
export function at(pointer: string): Json | undefined {
  let node: Json | undefined = doc;
  for (const part of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Obj)[unescapePointer(part)];
  }
  return node;
}

/** Follows a local $ref (and chains of them): the object and its pointer. */
export function deref(pointer: string): { node: Obj; pointer: string } {
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

// Compiled validators are pure functions of the document: a cache, not state.
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** The validator for the schema at `pointer` (compiled on first use). */
export function validatorAt(pointer: string) {
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

// --- calling the server -----------------------------------------------------

export interface CallOptions {
  /** The API key; null sends no Authorization header (default: the bootstrap key). */
  key?: string | null;
  headers?: Record<string, string>;
  body?: string;
  /** A JSON body, sent with Content-Type application/json. */
  json?: unknown;
  /**
   * The loopback address to connect from (default 127.0.0.1). Failed
   * authentications are counted per client address, so a test that fails
   * them connects from an address of its own.
   */
  localAddress?: string;
}

/** One request to `target` (thread 0). */
export function callOn(target: TestServer, method: string, urlPath: string, options: CallOptions = {}): Promise<Response> {
  const key = options.key === undefined ? target.apiKey : options.key ?? undefined;
  return request({
    port: target.ports[0],
    ca: target.ca,
    method,
    path: urlPath,
    key,
    headers: options.headers,
    body: options.body,
    json: options.json,
    localAddress: options.localAddress,
  });
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
export function expectMatches(reply: Response, responsePointer: string): void {
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

/** Checks a reply against what the document declares for `method urlPath` and the reply's status. */
export function expectOperation(reply: Response, urlPath: string, method: string): void {
  expectMatches(reply, operationResponse(urlPath, method, reply.status));
}

export function errorBody(reply: Response): { error: string; code: string; field: string | null } {
  return JSON.parse(reply.body) as { error: string; code: string; field: string | null };
}

/** expectOperation, then the status and (for errors) the code and field. */
export function expectReply(reply: Response, urlPath: string, method: string, status: number, error?: { code: string; field?: string | null }): void {
  expect(reply.status, `${method} ${urlPath}: ${reply.body}`).toBe(status);
  expectOperation(reply, urlPath, method);
  if (error) expect(errorBody(reply)).toMatchObject(error);
}
