// What every JSON endpoint (the /v1 API and the console API) reads from a uWS
// request. Call it synchronously in the handler: the request object is only
// valid until the handler returns. One object literal of one shape, so that
// the hot /v1 path reads its fields monomorphically (docs/performance.md).
import type { Cidr } from '../config.js';
import { clientAddress, normalizeAddress } from './client-ip.js';
import { constantBytes } from './respond.js';
import type { HttpRequest, HttpResponse } from './uws.js';

export interface RequestBasics {
  method: string;
  path: string;
  query: string;
  contentType: string;
  contentLength: string;
  authorization: string;
}

export function readRequest(req: HttpRequest): RequestBasics {
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    contentType: req.getHeader('content-type'),
    contentLength: req.getHeader('content-length'),
    authorization: req.getHeader('authorization'),
  };
}

// Request header names read on hot paths, as bytes encoded once (see
// constantBytes in respond.ts).
export const COOKIE = constantBytes('cookie');
export const USER_AGENT = constantBytes('user-agent');

/**
 * X-Forwarded-For as the one list it means: every line of it, in order,
 * joined with ", " (RFC 9110 §5.3); '' when there is none. uWS's getHeader
 * gives the first line only, and a proxy may add its hop as a line of its own
 * (HAProxy's `option forwardfor` does): read alone, the first line is what
 * the client claimed, so a client could choose its address. It costs a walk
 * of the request's headers: an empty first line may be followed by others,
 * so getHeader cannot even tell that there is nothing to read.
 */
export function forwardedFor(req: HttpRequest): string {
  let joined = '';
  req.forEach((name, value) => {
    if (name === 'x-forwarded-for') joined = joined === '' ? value : `${joined}, ${value}`;
  });
  return joined;
}

/**
 * The client address, 16 bytes (X-Forwarded-For believed only from a trusted
 * proxy). A system call and a copy: /v1 reads it only when it needs it.
 */
export function requestAddress(res: HttpResponse, req: HttpRequest, trustProxy: readonly Cidr[]): Uint8Array;
/** `strict`: null when a trusted proxy forwarded a hop that is no address (where the peer must not stand in: /metrics). */
export function requestAddress(res: HttpResponse, req: HttpRequest, trustProxy: readonly Cidr[], strict: true): Uint8Array | null;
export function requestAddress(res: HttpResponse, req: HttpRequest, trustProxy: readonly Cidr[], strict = false): Uint8Array | null {
  const peer = normalizeAddress(res.getRemoteAddress());
  if (trustProxy.length === 0) return peer;
  return strict ? clientAddress(peer, forwardedFor(req), trustProxy, true) : clientAddress(peer, forwardedFor(req), trustProxy);
}
