// Where a request ends is decided by uWebSockets.js's parser on its own
// terms: any Transfer-Encoding makes it read a chunked body ("xchunked" and
// "gzip, chunked" alike), of two Content-Length headers it reads the first,
// and a first line with an empty value counts as no header at all. A proxy in
// front that reads such a request differently sees another end of it, and the
// bytes it forwarded as a body would run here as a request of their own
// (request smuggling). RFC 9112 6.3: the server must answer 400 and close the
// connection. So a request whose framing is not plain (Transfer-Encoding
// exactly "chunked" and no Content-Length, or Content-Length lines all the same
// number, or neither) is refused that way, and nothing after it on its
// connection is read or answered.
//
// Telling "no such header" from "an empty first line" takes a walk of every
// header line (request.ts headerLines: a few µs for a browser's request,
// a quarter of a redirect's cost), and smuggling takes an HTTP intermediary
// that carries several clients' requests on one connection, which splitguard
// must be told of (SPLITGUARD_TRUST_PROXY) to see visitors' addresses at all.
// So behind a trusted proxy every request's framing is judged line by line;
// otherwise the header lines are walked only when a first Transfer-Encoding
// or Content-Length line has a value, and a direct client whose first such
// line is empty can only confuse its own connection (uWS reads no body).
//
// Every uWS handler is registered through guardedEndpoints(), so no handler
// can forget.
import { AppError } from '../errors.js';
import { type HeaderLines, headerLines } from './request.js';
import { constantBytes, openExchange, refuseAndClose } from './respond.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from './uws.js';

const TRANSFER_ENCODING = constantBytes('transfer-encoding');
const CONTENT_LENGTH = constantBytes('content-length');

/** What is wrong with the framing these header lines give, or null. */
function framingProblem({ transferEncoding: te, contentLength: cl }: HeaderLines): AppError | null {
  if (te.length === 0 && cl.length === 0) return null;
  if (te.length > 0 && cl.length > 0) return refusal('Transfer-Encoding', 'a request may not carry both Transfer-Encoding and Content-Length');
  if (te.length > 0) {
    if (te.length !== 1 || te[0].trim().toLowerCase() !== 'chunked') {
      return refusal('Transfer-Encoding', 'Transfer-Encoding must be exactly "chunked" (no other coding is accepted)');
    }
    return null;
  }
  if (!/^[0-9]{1,15}$/.test(cl[0]) || cl.some((v) => v !== cl[0])) {
    return refusal('Content-Length', 'Content-Length must be one decimal number, given once');
  }
  return null;
}

function refusal(field: string, why: string): AppError {
  return new AppError('invalid_parameter', why, field);
}

type Handler = (res: HttpResponse, req: HttpRequest) => void;

/** `handler`, run only for requests whose framing is plain; `lineByLine`: every request's header lines are walked (behind a trusted proxy). */
function guard(handler: Handler, lineByLine: boolean): Handler {
  return (res, req) => {
    const problem = !lineByLine && req.getHeader(TRANSFER_ENCODING) === '' && req.getHeader(CONTENT_LENGTH) === '' ? null : framingProblem(headerLines(req));
    if (problem === null) handler(res, req);
    else refuseAndClose(openExchange(res), problem);
  };
}

/** How the app's modules register handlers: never on the bare uWS app, always behind guard(). */
export interface Endpoints {
  get(pattern: string, handler: Handler): void;
  head(pattern: string, handler: Handler): void;
  post(pattern: string, handler: Handler): void;
  put(pattern: string, handler: Handler): void;
  del(pattern: string, handler: Handler): void;
  any(pattern: string, handler: Handler): void;
}

/** `behindProxy`: a proxy is trusted (SPLITGUARD_TRUST_PROXY), so every request's framing is judged line by line. */
export function guardedEndpoints(app: TemplatedApp, behindProxy: boolean): Endpoints {
  const g = (handler: Handler) => guard(handler, behindProxy);
  return {
    get: (pattern, handler) => void app.get(pattern, g(handler)),
    head: (pattern, handler) => void app.head(pattern, g(handler)),
    post: (pattern, handler) => void app.post(pattern, g(handler)),
    put: (pattern, handler) => void app.put(pattern, g(handler)),
    del: (pattern, handler) => void app.del(pattern, g(handler)),
    any: (pattern, handler) => void app.any(pattern, g(handler)),
  };
}
