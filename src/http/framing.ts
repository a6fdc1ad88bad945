// Where a request ends is decided by uWebSockets.js's parser on its own
// terms: any Transfer-Encoding makes it read a chunked body ("xchunked" and
// "gzip, chunked" alike), and of two Content-Length headers it reads the
// first. A proxy in front that reads such a request differently sees another
// end of it, and the bytes it forwarded as a body would run here as a
// request of their own (request smuggling). RFC 9112 6.3: the server must
// answer 400 and close the connection. So a request whose framing is not
// plain (Transfer-Encoding exactly "chunked" and no Content-Length, or one
// Content-Length of digits, or neither) is refused that way, and nothing after
// it on its connection is read or answered.
//
// Every uWS handler is registered through guardedEndpoints(), so no handler
// can forget.
import { AppError } from '../errors.js';
import { constantBytes, openExchange, HEADER_BYTES, STATUS_LINE, watchAbort } from './respond.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from './uws.js';

const TRANSFER_ENCODING = constantBytes('transfer-encoding');
const CONTENT_LENGTH = constantBytes('content-length');

/** What is wrong with the request's framing, or null. Reads the request synchronously. */
function framingProblem(req: HttpRequest): AppError | null {
  const te = req.getHeader(TRANSFER_ENCODING);
  const cl = req.getHeader(CONTENT_LENGTH);
  if (te === '' && cl === '') return null;
  if (te !== '' && cl !== '') return refusal('Transfer-Encoding', 'a request may not carry both Transfer-Encoding and Content-Length');
  // The first header of each name is what the parser read; any other one
  // must say the same, or the two ends disagree.
  const values: string[] = [];
  const name = te !== '' ? 'transfer-encoding' : 'content-length';
  req.forEach((key, value) => {
    if (key === name) values.push(value);
  });
  if (te !== '') {
    if (values.length !== 1 || te.trim().toLowerCase() !== 'chunked') {
      return refusal('Transfer-Encoding', 'Transfer-Encoding must be exactly "chunked" (no other coding is accepted)');
    }
    return null;
  }
  if (!/^[0-9]{1,15}$/.test(cl) || values.some((v) => v !== cl)) {
    return refusal('Content-Length', 'Content-Length must be one decimal number, given once');
  }
  return null;
}

function refusal(field: string, why: string): AppError {
  return new AppError('invalid_parameter', why, field);
}

/**
 * Answers 400 and closes the connection without reading anything more from
 * it. The answer waits for the parser to finish the bytes it already holds:
 * a request pipelined behind this one finds this one still pending, and uWS
 * then closes the connection before running it. Only when nothing follows
 * does the 400 go out, written uncorked so that uWS closes right after it.
 */
function refuseFraming(res: HttpResponse, problem: AppError): void {
  const exchange = openExchange(res);
  watchAbort(exchange);
  res.pause();
  setImmediate(() => {
    if (exchange.aborted) return;
    exchange.done = true;
    res.cork(() => {
      res
        .writeStatus(STATUS_LINE[400])
        .writeHeader(HEADER_BYTES.hsts, HEADER_BYTES.hstsValue)
        .writeHeader(HEADER_BYTES.cacheControl, HEADER_BYTES.noStore)
        .writeHeader(HEADER_BYTES.contentType, HEADER_BYTES.json)
        .end(JSON.stringify(problem.body()), true);
    });
  });
}

type Handler = (res: HttpResponse, req: HttpRequest) => void;

/** `handler`, run only for requests whose framing is plain. */
function guard(handler: Handler): Handler {
  return (res, req) => {
    const problem = framingProblem(req);
    if (problem === null) handler(res, req);
    else refuseFraming(res, problem);
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

export function guardedEndpoints(app: TemplatedApp): Endpoints {
  return {
    get: (pattern, handler) => void app.get(pattern, guard(handler)),
    head: (pattern, handler) => void app.head(pattern, guard(handler)),
    post: (pattern, handler) => void app.post(pattern, guard(handler)),
    put: (pattern, handler) => void app.put(pattern, guard(handler)),
    del: (pattern, handler) => void app.del(pattern, guard(handler)),
    any: (pattern, handler) => void app.any(pattern, guard(handler)),
  };
}
