// The endpoint table, free of uWebSockets.js: api/ and console/ modules
// register plain handlers here with their rights and body rules, and
// dispatch.ts runs them for both ways in (API keys and console sessions).
// Patterns are literal segments and :params.
import type { Account } from '../store/db.js';
import type { Headers } from './respond.js';

export interface ApiRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  /** The raw query string, without '?'. */
  query: string;
  body: unknown;
  /** Every If-Match line of a PUT or DELETE as one list; null when there is none (http/request.ts). */
  ifMatch: string | null;
  /** The authenticated account as of this request (handlers that change it re-read it in their transaction). */
  account: Account;
  /**
   * Whether the caller holds admin rights: the API key's own rights, or the
   * console user's (auth.ts rightsOf). Never the account's: a key carries no
   * more rights than the person who made it.
   */
  admin: boolean;
}

export interface ApiReply {
  status: number;
  body?: unknown;
  headers?: Headers;
}

export type Handler = (req: ApiRequest) => ApiReply | Promise<ApiReply>;

interface Endpoint {
  method: string;
  segments: string[];
  handler: Handler;
  /** The endpoint takes a JSON body. */
  body: boolean;
  /**
   * The endpoint takes no body or a JSON one (`body` is then false, so callers
   * that know only `body` treat it as an endpoint without a body).
   */
  optionalBody: boolean;
  /** Only callers with admin rights see the endpoint; to anyone else it does not exist (404, never 405). */
  admin: boolean;
}

type Found = { kind: 'found'; endpoint: Endpoint; params: Record<string, string> };

export type Match =
  | Found
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class EndpointTable {
  readonly #endpoints: Endpoint[] = [];
  /**
   * Literal paths ('/v1/account') → their endpoints, for an exact-path match
   * without splitting. Holds an endpoint only if no earlier one (a pattern
   * with :params) already answers that method and path, so the answer is
   * the one the full scan would give.
   */
  readonly #literal = new Map<string, Found[]>();

  /**
   * An endpoint; POST and PUT take a JSON body unless `body: false` (the body is
   * then ignored) or `body: 'optional'` (an empty body is no body; a
   * non-empty one must be JSON and is passed on for the handler to check).
   * `admin: true` hides the endpoint from callers without admin rights.
   */
  add(method: 'GET' | 'POST' | 'PUT' | 'DELETE', pattern: string, handler: Handler, options: { body?: boolean | 'optional'; admin?: boolean } = {}): this {
    const body = options.body ?? (method === 'POST' || method === 'PUT');
    const segments = pattern.split('/').filter(Boolean);
    const endpoint: Endpoint = { method, segments, handler, body: body === true, optionalBody: body === 'optional', admin: options.admin === true };
    const literal = segments.every((p) => p.charCodeAt(0) !== 58);
    if (literal && !this.#endpoints.some((e) => e.method === method && matchSegments(e.segments, segments))) {
      const path = `/${segments.join('/')}`;
      // The answer itself is kept: a literal match allocates nothing.
      this.#literal.set(path, [...(this.#literal.get(path) ?? []), { kind: 'found', endpoint, params: NO_PARAMS }]);
    }
    this.#endpoints.push(endpoint);
    return this;
  }

  /** The endpoint for a call; endpoints marked admin exist only when `admin` is true. */
  match(method: string, path: string, admin = true): Match {
    const literal = this.#literal.get(path);
    if (literal !== undefined) {
      for (let i = 0; i < literal.length; i++) {
        const found = literal[i];
        if (found.endpoint.method === method && (admin || !found.endpoint.admin)) return found;
      }
    }
    const parts = path.split('/').filter(Boolean);
    const allow: string[] = [];
    for (const endpoint of this.#endpoints) {
      if (endpoint.admin && !admin) continue;
      const params = matchSegments(endpoint.segments, parts);
      if (!params) continue;
      if (endpoint.method === method) return { kind: 'found', endpoint, params };
      allow.push(endpoint.method);
    }
    return allow.length ? { kind: 'method', allow } : { kind: 'none' };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.charCodeAt(0) === 58) {
      // A malformed escape (%ZZ) is handed over as it came: the path names this
      // endpoint, and the handler's check of the value says what is wrong with it.
      let value = parts[i];
      try {
        value = decodeURIComponent(value);
      } catch {}
      params[p.slice(1)] = value;
    } else if (p !== parts[i]) {
      return null;
    }
  }
  return params;
}
