// What every JSON endpoint (the /v1 API and the console API) reads from a uWS
// request. Call it synchronously in the handler: the request object is only
// valid until the handler returns.
import type { Cidr } from '../config.js';
import { clientAddress, normalizeAddress } from './client-ip.js';
import type { HttpRequest, HttpResponse } from './uws.js';

export interface RequestBasics {
  method: string;
  path: string;
  query: string;
  contentType: string;
  contentLength: string;
  /** The client address, 16 bytes (X-Forwarded-For believed only from a trusted proxy). */
  ip: Uint8Array;
}

export function readRequest(res: HttpResponse, req: HttpRequest, trustProxy: readonly Cidr[]): RequestBasics {
  const peer = normalizeAddress(res.getRemoteAddress());
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    contentType: req.getHeader('content-type'),
    contentLength: req.getHeader('content-length'),
    ip: trustProxy.length > 0 ? clientAddress(peer, req.getHeader('x-forwarded-for'), trustProxy) : peer,
  };
}
