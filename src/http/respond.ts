// Every response goes out through here: corked (one syscall for status,
// headers and body), and never written to a request the client has aborted.
import { AppError } from '../errors.js';
import { log } from '../log.js';
import type { HttpResponse } from './uws.js';

const STATUS: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 202: '202 Accepted', 204: '204 No Content', 302: '302 Found',
  400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found',
  405: '405 Method Not Allowed', 413: '413 Payload Too Large', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

export const JSON_TYPE = 'application/json; charset=utf-8';

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

export function send(x: Exchange, status: number, headers: Headers, body?: string): void {
  if (x.aborted || x.done) return;
  x.done = true;
  x.res.cork(() => {
    x.res.writeStatus(STATUS[status] ?? String(status));
    for (const name in headers) x.res.writeHeader(name, headers[name]);
    if (body === undefined) {
      x.res.endWithoutBody();
    } else if (x.head) {
      // uWS writes a body even to HEAD; a client would read those bytes as
      // the start of the next response. endWithoutBody(length) leaves the
      // response unfinished in this uWS build (see app.ts), so the length
      // goes out as a header of our own.
      x.res.writeHeader('Content-Length', String(Buffer.byteLength(body))).endWithoutBody();
    } else {
      x.res.end(body);
    }
  });
}

export function sendJson(x: Exchange, status: number, body: unknown, headers: Headers = {}): void {
  headers['Cache-Control'] = 'no-store';
  if (status === 204) {
    send(x, status, headers);
    return;
  }
  headers['Content-Type'] = JSON_TYPE;
  send(x, status, headers, JSON.stringify(body));
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
