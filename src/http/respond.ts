// Every response goes out through here: corked (one syscall for status,
// headers and body), and never written to a request the client has aborted.
import { AppError } from '../errors.js';
import { log } from '../log.js';
import type { HttpResponse } from './uws.js';

// Status lines and constant header names and values go to uWS as bytes
// encoded once (here, for the API and the redirect alike): uWS reads a typed
// array in place, while each string it is given is measured and converted to
// UTF-8 in a fresh heap buffer.
const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');
export const STATUS_LINE: Record<number, Buffer> = {};
for (const line of [
  '200 OK', '201 Created', '202 Accepted', '204 No Content', '302 Found', '400 Bad Request', '401 Unauthorized',
  '403 Forbidden', '404 Not Found', '405 Method Not Allowed', '413 Payload Too Large', '429 Too Many Requests',
  '500 Internal Server Error', '503 Service Unavailable',
]) {
  STATUS_LINE[Number(line.slice(0, 3))] = latin1(line);
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const HEADER_BYTES = {
  cacheControl: latin1('Cache-Control'),
  noStore: latin1('no-store'),
  privateNoStore: latin1('private, no-store'),
  contentType: latin1('Content-Type'),
  json: latin1(JSON_TYPE),
  location: latin1('Location'),
  setCookie: latin1('Set-Cookie'),
};
/** Names of headers sent on most API answers (names are code literals, so the lookup hashes nothing). */
const NAMES = new Map<string, Buffer>(
  ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'].map((n) => [n, latin1(n)]),
);

/** Per-request state that outlives the synchronous part of a uWS handler. */
export interface Exchange {
  res: HttpResponse;
  aborted: boolean;
  done: boolean;
  /** A HEAD request: the answer carries the headers of the body, never the body. */
  head: boolean;
}

export function exchange(res: HttpResponse, head = false): Exchange {
  return { res, aborted: false, done: false, head };
}

/** Must be called before the first await of a handler (uWS rule). */
export function watchAbort(x: Exchange, onAbort?: () => void): void {
  x.res.onAborted(() => {
    x.aborted = true;
    onAbort?.();
  });
}

export type Headers = Record<string, string>;

export function send(x: Exchange, status: number, headers: Headers, body?: string, json = false): void {
  if (x.aborted || x.done) return;
  x.done = true;
  x.res.cork(() => {
    const res = x.res;
    res.writeStatus(STATUS_LINE[status] ?? String(status));
    for (const name in headers) res.writeHeader(NAMES.get(name) ?? name, headers[name]);
    if (json) {
      res.writeHeader(HEADER_BYTES.cacheControl, HEADER_BYTES.noStore);
      if (body !== undefined) res.writeHeader(HEADER_BYTES.contentType, HEADER_BYTES.json);
    }
    if (body === undefined) {
      res.endWithoutBody();
    } else if (x.head) {
      // uWS writes a body even to HEAD; a client would read those bytes as
      // the start of the next response. endWithoutBody(length) leaves the
      // response unfinished in this uWS build (see app.ts), so the length
      // goes out as a header of our own.
      res.writeHeader('Content-Length', String(Buffer.byteLength(body))).endWithoutBody();
    } else {
      res.end(body);
    }
  });
}

/** A JSON answer (no body for 204), never cached by the client. */
export function sendJson(x: Exchange, status: number, body: unknown, headers: Headers = {}): void {
  send(x, status, headers, status === 204 ? undefined : JSON.stringify(body), true);
}

export function sendError(x: Exchange, err: AppError, headers: Headers = {}): void {
  sendJson(x, err.status, err.body(), headers);
}

/**
 * The error a client may see: client errors (4xx) as they are; anything else
 * as the one fixed `internal` body, with the details (a stack, a path, a
 * native status) logged and never sent.
 */
export function publicError(err: unknown): AppError {
  if (err instanceof AppError && err.status < 500) return err;
  log('error', 'unhandled_error', { error: err });
  return new AppError('internal');
}
