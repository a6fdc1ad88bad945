// GET and HEAD /r/<code>, the hot path: the decision is Redirector.visit's
// (redirect/redirect.ts); this writes its answer.
import type { AppDeps } from '../app.js';
import type { Endpoints } from '../http/framing.js';
import { COOKIE, forwardedFor, USER_AGENT } from '../http/request.js';
import { endBody, endHead, openExchange, HEADER_BYTES, type Headers, publicError, REDIRECT_BODY, send, sendJson, STATUS_LINE } from '../http/respond.js';
import type { HttpRequest, HttpResponse } from '../http/uws.js';
import { NOT_FOUND_PAGE } from './redirect.js';

const NOT_FOUND_HEADERS: Headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' };

export function registerRedirect(endpoints: Endpoints, deps: Pick<AppDeps, 'config' | 'redirector'>): void {
  const trustProxy = deps.config.trustProxy.length > 0;
  // The redirect: synchronous from request to response, so the whole answer
  // goes out corked in one write without an explicit cork(). The 302 carries
  // a short constant body so that it ends with tryEnd, which stays pending
  // when the client does not read (then uWS closes the connection at its
  // next pipelined request); a body-less end() would complete whatever the
  // socket's state (endHead in respond.ts). The 404 goes through send().
  const redirect = (res: HttpResponse, req: HttpRequest, count: boolean) => {
    const r = deps.redirector;
    let status: number;
    try {
      status = r.visit(
        req.getParameter(0) ?? '',
        res.getRemoteAddress(),
        trustProxy ? forwardedFor(req) : '',
        req.getHeader(COOKIE),
        req.getHeader(USER_AGENT),
        req.getQuery() ?? '',
        count,
      );
    } catch (err) {
      // A handler that returns without answering ends the process (uWS):
      // one route the decision cannot handle (finding 114's layout) took
      // every thread down, at every start. Answered 500, logged.
      sendJson(openExchange(res, !count), 500, publicError(err).body());
      return;
    }
    if (status === 302) {
      res.writeStatus(STATUS_LINE[302]).writeHeader(HEADER_BYTES.location, r.location).writeHeader(HEADER_BYTES.cacheControl, HEADER_BYTES.privateNoStore)
        .writeHeader(HEADER_BYTES.hsts, HEADER_BYTES.hstsValue);
      if (r.setCookie !== null) res.writeHeader(HEADER_BYTES.setCookie, r.setCookie);
      if (count) endBody(res.writeHeader(HEADER_BYTES.contentType, HEADER_BYTES.plainText), REDIRECT_BODY);
      else endHead(res);
    } else {
      send(openExchange(res, !count), 404, NOT_FOUND_HEADERS, NOT_FOUND_PAGE);
    }
  };
  endpoints.get('/r/:code', (res, req) => redirect(res, req, true));
  endpoints.head('/r/:code', (res, req) => redirect(res, req, false));
}
