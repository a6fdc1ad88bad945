// Every response goes out through here: corked (one syscall for status,
// headers and body), and never written to a request the client has aborted.
import { AppError, sentAsIs } from '../errors.js';
import { log } from '../log.js';
import type { HttpResponse } from './uws.js';

// Status lines and constant header names and values go to uWS as bytes
// encoded once (here, for the API and the redirect alike), each in an
// ArrayBuffer of its own: uWS reads an ArrayBuffer in place with two calls
// into V8 fewer than a typed array over one, while each string it is given
// is measured and converted to UTF-8 in a fresh heap buffer
// (docs/performance.md, "Figures behind code comments").
/** `text` as bytes (Latin-1 unless said) in an ArrayBuffer of their own. */
export function constantBytes(text: string, encoding: 'latin1' | 'utf8' = 'latin1'): ArrayBuffer {
  return Uint8Array.from(Buffer.from(text, encoding)).buffer;
}
export const STATUS_LINE: Record<number, ArrayBuffer> = {};
for (const line of [
  '200 OK', '201 Created', '202 Accepted', '204 No Content', '302 Found', '400 Bad Request', '401 Unauthorized',
  '403 Forbidden', '404 Not Found', '405 Method Not Allowed', '412 Precondition Failed', '413 Payload Too Large', '429 Too Many Requests',
  '500 Internal Server Error', '503 Service Unavailable',
]) {
  STATUS_LINE[Number(line.slice(0, 3))] = constantBytes(line);
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const HEADER_BYTES = {
  cacheControl: constantBytes('Cache-Control'),
  noStore: constantBytes('no-store'),
  privateNoStore: constantBytes('private, no-store'),
  contentType: constantBytes('Content-Type'),
  json: constantBytes(JSON_TYPE),
  location: constantBytes('Location'),
  plainText: constantBytes('text/plain; charset=utf-8'),
  setCookie: constantBytes('Set-Cookie'),
  // Every answer: the service is HTTPS only. Browsers ignore it over a
  // certificate they had to be told to accept (RFC 6797 8.1), so a
  // self-signed test setup is not locked in.
  hsts: constantBytes('Strict-Transport-Security'),
  hstsValue: constantBytes('max-age=31536000'),
  // Every answer but the redirect's 302 (whose body no browser shows): a
  // browser takes the Content-Type as given and never sniffs an API answer,
  // a tenant's text included, into HTML or script.
  nosniff: constantBytes('X-Content-Type-Options'),
  nosniffValue: constantBytes('nosniff'),
};
/** The 302's body (see redirect/endpoint.ts for why it has one). */
export const REDIRECT_BODY = constantBytes('Found\n');
/** Names of headers sent on most API answers (names are code literals, so the lookup hashes nothing). */
const NAMES = new Map<string, ArrayBuffer>(
  ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'].map((n) => [n, constantBytes(n)]),
);

/**
 * Per-request state that outlives the synchronous part of a uWS handler.
 *
 * Every answer goes through send(), which keeps the uWS rule this build
 * enforces with std::terminate(): a handler may return only once its
 * response is complete or an onAborted handler is attached. A plain
 * res.end(body) does not always complete: inside a corked section (uWS corks
 * every handler it calls from the parser), a write that overflows the 16 KiB
 * cork buffer while the socket already has unsent data loses the overflow
 * (uWebSockets <= v20.44 AsyncSocket::uncork returns {0, true} without
 * buffering it; fixed upstream in 6b7f354, April 2026), so the response stays
 * pending. A client that pipelines requests without reading makes exactly
 * that state, and the next pipelined request then killed the process.
 * send() therefore writes every body with tryEnd and, when the socket is
 * backpressured, attaches onAborted and finishes the body from onWritable.
 * A pending response also caps what a connection holds: uWS closes a
 * connection whose next pipelined request arrives while one is pending.
 */
export interface Exchange {
  res: HttpResponse;
  aborted: boolean;
  done: boolean;
  /** A HEAD request: the answer carries the headers of the body, never the body. */
  head: boolean;
  /** res.onAborted is attached (uWS keeps one handler per response; a second call replaces the first). */
  watched: boolean;
  /** Runs once if the client goes away before the answer is complete. */
  onAbort: (() => void) | null;
}

export function openExchange(res: HttpResponse, head = false): Exchange {
  return { res, aborted: false, done: false, head, watched: false, onAbort: null };
}

/**
 * Must be called before the first await of a handler (uWS rule). `onAbort`,
 * if given, replaces the exchange's previous one (body.ts uses it to end a
 * body read).
 */
export function watchAbort(exchange: Exchange, onAbort?: () => void): void {
  if (onAbort !== undefined) exchange.onAbort = onAbort;
  if (exchange.watched) return;
  exchange.watched = true;
  exchange.res.onAborted(() => {
    exchange.aborted = true;
    const hook = exchange.onAbort;
    exchange.onAbort = null;
    hook?.();
  });
}

/** Header values by name; a list is sent as that many headers of the name (Set-Cookie). */
export type Headers = Record<string, string | readonly string[]>;

export function send(exchange: Exchange, status: number, headers: Headers, body?: string | Uint8Array, json = false): void {
  if (exchange.aborted || exchange.done) return;
  exchange.done = true;
  exchange.res.cork(() => {
    const res = exchange.res;
    res.writeStatus(STATUS_LINE[status] ?? String(status)).writeHeader(HEADER_BYTES.hsts, HEADER_BYTES.hstsValue).writeHeader(HEADER_BYTES.nosniff, HEADER_BYTES.nosniffValue);
    for (const name in headers) {
      const value = headers[name]!;
      if (typeof value === 'string') res.writeHeader(NAMES.get(name) ?? name, value);
      else for (const one of value) res.writeHeader(NAMES.get(name) ?? name, one);
    }
    if (json) {
      res.writeHeader(HEADER_BYTES.cacheControl, HEADER_BYTES.noStore);
      if (body !== undefined) res.writeHeader(HEADER_BYTES.contentType, HEADER_BYTES.json);
    }
    if (exchange.head) {
      endHead(res);
    } else if (body === undefined) {
      // Only 204 (sendJson): the API answers every request with a body.
      res.endWithoutBody();
    } else {
      endBody(res, body, exchange);
    }
  });
}

/**
 * Ends the answer to a HEAD, with `Content-Length: 0` and
 * `Connection: close`: the connection closes once the answer is sent.
 *
 * An answer without a body completes in uWS whatever the socket's state, so
 * nothing tells uWS to stop reading: a client that pipelines HEADs without
 * reading would have every answer appended to the connection's own buffer,
 * each write retrying the whole buffer first (docs/reliability.md, issue 14,
 * finding 9). Answers with a body do not need this: their tryEnd stays
 * pending under backpressure, and uWS closes the connection at the next
 * pipelined request.
 *
 * The length is 0, not the GET's: uWS closes only an answer ended with a
 * length, and one ended with a length it never sends stays pending. (This
 * build's endWithoutBody reads any first argument, undefined too, as a
 * length: NaN cast to size_t, which aborts the process under TLS.)
 */
export function endHead(res: HttpResponse): void {
  res.endWithoutBody(0, true);
}

/**
 * Ends the response with `body`, finishing it from onWritable if the socket
 * cannot take it all now. The exchange is made only then when the caller
 * has none (the redirect's 302 stays allocation-free on the common path).
 */
export function endBody(res: HttpResponse, body: string | Uint8Array | ArrayBuffer, exchange?: Exchange): void {
  const total = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (res.tryEnd(body, total)[1]) return;
  // Backpressure. Offsets are bytes of the body (the first write started at
  // offset 0), so the rest is the UTF-8 bytes past `offset`.
  const pending = exchange ?? openExchange(res);
  watchAbort(pending);
  const bytes = typeof body === 'string' ? Buffer.from(body) : body instanceof ArrayBuffer ? new Uint8Array(body) : body;
  res.onWritable((offset: number) => (pending.aborted ? true : res.tryEnd(bytes.subarray(offset), total)[0]));
}

/**
 * Answers `problem` and closes the connection without reading anything more
 * from it: a request whose framing cannot be trusted (http/framing.ts), a
 * body sent in more pieces than anyone sends (http/body.ts). Nothing else is
 * answered on the exchange once this is called. The answer waits for the
 * parser to finish the bytes it already holds: a request pipelined behind
 * this one finds this one still pending, and uWS then closes the connection
 * before running it. Only when nothing follows does the answer go out, in
 * one corked write, and uWS closes the connection right after it.
 */
export function refuseAndClose(exchange: Exchange, problem: AppError): void {
  if (exchange.aborted || exchange.done) return;
  exchange.done = true;
  watchAbort(exchange);
  const res = exchange.res;
  res.pause();
  setImmediate(() => {
    if (exchange.aborted) return;
    res.cork(() => {
      res
        .writeStatus(STATUS_LINE[problem.status] ?? String(problem.status))
        .writeHeader(HEADER_BYTES.hsts, HEADER_BYTES.hstsValue)
        .writeHeader(HEADER_BYTES.nosniff, HEADER_BYTES.nosniffValue)
        .writeHeader(HEADER_BYTES.cacheControl, HEADER_BYTES.noStore)
        .writeHeader(HEADER_BYTES.contentType, HEADER_BYTES.json)
        .end(JSON.stringify(problem.body()), true);
    });
  });
}

/** A JSON answer (no body for 204), never cached by the client. */
export function sendJson(exchange: Exchange, status: number, body: unknown, headers: Headers = {}): void {
  send(exchange, status, headers, status === 204 ? undefined : JSON.stringify(body), true);
}

/**
 * The error a client may see: as it is when sentAsIs(status); anything else
 * as the one fixed `internal` body, with the details (a stack, a path, a
 * native status) logged and never sent.
 */
export function publicError(err: unknown): AppError {
  if (err instanceof AppError && sentAsIs(err.status)) return err;
  log('error', 'unhandled_error', { error: err });
  return new AppError('internal');
}
