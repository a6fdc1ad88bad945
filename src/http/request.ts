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
export const FORWARDED_FOR = constantBytes('x-forwarded-for');
export const USER_AGENT = constantBytes('user-agent');

/**
 * The client address, 16 bytes (X-Forwarded-For believed only from a trusted
 * proxy). A system call and a copy: /v1 reads it only when it needs it.
 */
export function requestAddress(res: HttpResponse, req: HttpRequest, trustProxy: readonly Cidr[]): Uint8Array {
  const peer = normalizeAddress(res.getRemoteAddress());
  return trustProxy.length > 0 ? clientAddress(peer, req.getHeader(FORWARDED_FOR), trustProxy) : peer;
}
