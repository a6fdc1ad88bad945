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
  /**
   * Every If-Match line of a PUT or DELETE, joined as one list (RFC 9110
   * §5.3; '' for one empty line); null when there is none, and for every
   * other method. Only those two read it (api/routes.ts), and only they pay
   * for the walk of the lines (headerLines): getHeader gives the first line
   * alone, and '' for an empty line as for none, so a stale tag on a second
   * line, behind an empty or "*" one, would go unseen.
   */
  ifMatch: string | null;
}

export function readRequest(req: HttpRequest): RequestBasics {
  const method = req.getMethod().toUpperCase();
  return {
    method,
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    contentType: req.getHeader('content-type'),
    contentLength: req.getHeader('content-length'),
    authorization: req.getHeader('authorization'),
    // Behind a trusted proxy the framing guard has walked the lines already: the same walk.
    ifMatch: method === 'PUT' || method === 'DELETE' ? headerLines(req).ifMatch : null,
  };
}

// Request header names read on hot paths, as bytes encoded once (see
// constantBytes in respond.ts).
export const COOKIE = constantBytes('cookie');
export const USER_AGENT = constantBytes('user-agent');

/**
 * One walk of a request's header lines (uWS's getHeader sees only the first
 * line of a name, and cannot tell an empty line from none): the framing
 * headers line by line, and X-Forwarded-For as the one list it means. A walk
 * costs about 150 ns a line (two strings each; a browser sends about 15), so
 * it is made only where it is needed: behind a trusted proxy, where
 * http/framing.ts walks every request and the address is read from the same
 * walk, and for a PUT or DELETE, whose If-Match it reads (readRequest). Valid
 * for the request it was made for, while its handler runs.
 */
export interface HeaderLines {
  /** Transfer-Encoding and Content-Length lines, in order. */
  readonly transferEncoding: readonly string[];
  readonly contentLength: readonly string[];
  /** Every X-Forwarded-For line, in order, joined with ", " (RFC 9110 §5.3); '' when there is none. */
  forwardedFor: string;
  /** Every If-Match line, joined the same way ('' for one empty line); null when there is none. */
  ifMatch: string | null;
}

const walk: { req: HttpRequest | null; transferEncoding: string[]; contentLength: string[]; forwardedFor: string; ifMatch: string | null } = {
  req: null,
  transferEncoding: [],
  contentLength: [],
  forwardedFor: '',
  ifMatch: null,
};
const visitLine = (name: string, value: string): void => {
  // Lengths first: most lines are none of these four.
  if (name.length === 15 && name === 'x-forwarded-for') walk.forwardedFor = walk.forwardedFor === '' ? value : `${walk.forwardedFor}, ${value}`;
  else if (name.length === 14 && name === 'content-length') walk.contentLength.push(value);
  else if (name.length === 17 && name === 'transfer-encoding') walk.transferEncoding.push(value);
  else if (name.length === 8 && name === 'if-match') walk.ifMatch = walk.ifMatch === null ? value : `${walk.ifMatch}, ${value}`;
};

/** The walk of `req`'s header lines (made once per request: a second call gives the first's). */
export function headerLines(req: HttpRequest): HeaderLines {
  if (walk.req !== req) {
    // The same two arrays every time (a caller reads them while its handler runs): behind a proxy this is every redirect's walk.
    walk.req = req;
    walk.transferEncoding.length = 0;
    walk.contentLength.length = 0;
    walk.forwardedFor = '';
    walk.ifMatch = null;
    req.forEach(visitLine);
  }
  return walk;
}

/**
 * X-Forwarded-For, every line of it (see HeaderLines): read alone, the first
 * line is what the client claimed, and a proxy may add its hop as a line of
 * its own (HAProxy's `option forwardfor` does), so a client could choose its
 * address.
 */
export const forwardedFor = (req: HttpRequest): string => headerLines(req).forwardedFor;

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
