// The /v1 route table, free of uWebSockets.js: api/ modules register plain
// handlers here; app.ts does the HTTP around them. Patterns are literal
// segments and :params.
import type { Account, ApiKey } from '../store/db.js';

export interface ApiRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  /** The raw query string, without '?'. */
  query: string;
  body: unknown;
  /** The authenticated account as of this request (handlers that change it re-read it in their transaction). */
  account: Account;
  key: ApiKey;
  /** Client address, 16 bytes. */
  ip: Uint8Array;
}

export interface ApiReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: ApiRequest) => ApiReply | Promise<ApiReply>;

interface Route {
  method: string;
  segments: string[];
  handler: Handler;
  /** The route takes a JSON body. */
  body: boolean;
  /**
   * The route takes no body or a JSON one (`body` is then false, so callers
   * that know only `body` treat it as a route without a body).
   */
  optionalBody: boolean;
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

export class Router {
  readonly #routes: Route[] = [];

  /**
   * A route; POST and PUT take a JSON body unless `body: false` (the body is
   * then ignored) or `body: 'optional'` (an empty body is no body; a
   * non-empty one must be JSON and is passed on for the handler to check).
   */
  add(method: 'GET' | 'POST' | 'PUT' | 'DELETE', pattern: string, handler: Handler, options: { body?: boolean | 'optional' } = {}): this {
    const body = options.body ?? (method === 'POST' || method === 'PUT');
    this.#routes.push({ method, segments: pattern.split('/').filter(Boolean), handler, body: body === true, optionalBody: body === 'optional' });
    return this;
  }

  match(method: string, path: string): Match {
    const parts = path.split('/').filter(Boolean);
    const allow: string[] = [];
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allow.push(route.method);
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
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        return null;
      }
      params[p.slice(1)] = value;
    } else if (p !== parts[i]) {
      return null;
    }
  }
  return params;
}
