// The one dispatcher of the endpoint table, for both ways in: an API key
// (/v1/..., http/api-endpoint.ts) and a console session (/console/api/..., console/server.ts).
// Each way in authenticates its caller and then hands the call here, which
// finds the endpoint (endpoints marked admin exist only for callers with admin
// rights), reads the body the endpoint takes, runs the handler, and answers
// through the caller's `Answer` (the two differ only in the headers they add).
import { AppError } from '../errors.js';
import type { Account } from '../store/db.js';
import { contentTypeError, isJsonType, parseJson, readBody } from './body.js';
import type { RequestBasics } from './request.js';
import { type Exchange, type Headers, watchAbort } from './respond.js';
import type { ApiReply, ApiRequest, EndpointTable } from './endpoint-table.js';

/** Who is calling, as the way in authenticated them. */
export interface Caller {
  account: Account;
  /** The caller's own admin rights (auth.ts rightsOf): the key's, or the console user's. */
  admin: boolean;
}

export interface Answer {
  /** Sends a handler's reply; `headers` are the dispatcher's (Allow, rate-limit headers), the reply's own win. */
  reply(exchange: Exchange, out: ApiReply, headers: Headers): void;
  /** Sends an error (AppError as it is, anything else as `internal`). */
  fail(exchange: Exchange, err: unknown, headers: Headers): void;
}

/**
 * Runs one call. `path` is the path the table matches (the console strips its
 * /console/api prefix from /v1 calls); `inflight` counts answers still being
 * computed, which a graceful shutdown waits for; `admitted`, when given,
 * settles once the caller's limit has let the call in (it fills `headers`
 * first) or rejects with the refusal; `body`, when given, is the request's
 * body already being read (a way in that awaited before dispatching must
 * have attached the reader in uWS's handler).
 */
export function dispatch(
  table: EndpointTable,
  exchange: Exchange,
  call: RequestBasics,
  path: string,
  caller: Caller,
  answer: Answer,
  headers: Headers,
  inflight: { count: number },
  admitted?: Promise<void>,
  body?: Promise<Buffer>,
): void {
  const settle = (work: Promise<ApiReply>) => settleLater(work, exchange, answer, headers, inflight);
  // Still being admitted (the cluster-wide rate limit asks Redis): whatever
  // the answer, it waits for the admission, whose refusal is the answer; a
  // body is read meanwhile, as uWS delivers it only to a reader attached now.
  const refuse = (err: AppError) => {
    if (admitted) settle(admitted.then(() => Promise.reject(err)));
    else answer.fail(exchange, err, headers);
  };
  const match = table.match(call.method, path, caller.admin);
  if (match.kind === 'none') {
    refuse(new AppError('not_found', `no endpoint ${call.method} ${call.path}`));
    return;
  }
  if (match.kind === 'method') {
    const allow = match.allow.join(', ');
    headers.Allow = allow;
    refuse(new AppError('method_not_allowed', `${call.path} allows ${allow}`));
    return;
  }
  const endpoint = match.endpoint;
  const req: ApiRequest = {
    method: call.method,
    path,
    params: match.params,
    query: call.query,
    body: undefined,
    ifMatch: call.ifMatch,
    account: caller.account,
    admin: caller.admin,
  };
  if (endpoint.body || endpoint.optionalBody) {
    const jsonType = call.contentType === '' || isJsonType(call.contentType);
    // An optional body is judged once it has arrived: an empty one with any
    // Content-Type (curl -d '' sends a form type) is no body.
    if (!jsonType && !endpoint.optionalBody) {
      refuse(contentTypeError());
      return;
    }
    const read = body ?? readBody(exchange, call.contentLength);
    // The admission's refusal is the answer (contract §3's order), before a
    // body's own failure, and it goes out once the body has stopped
    // arriving: sent while pieces still came, it left the reader unable to
    // close the connection of a body refused for its pieces (http/body.ts).
    const ready = admitted
      ? Promise.allSettled([admitted, read]).then(([a, r]) => {
        if (a.status === 'rejected') throw a.reason;
        if (r.status === 'rejected') throw r.reason;
        return r.value;
      })
      : read;
    settle(
      ready.then((buf) => {
        if (buf.length === 0 && endpoint.optionalBody) req.body = undefined;
        else if (!jsonType) throw contentTypeError();
        else req.body = parseJson(buf);
        return endpoint.handler(req);
      }),
    );
    return;
  }
  if (admitted) {
    settle(admitted.then(() => endpoint.handler(req)));
    return;
  }
  let out: ApiReply | Promise<ApiReply>;
  try {
    out = endpoint.handler(req);
  } catch (err) {
    answer.fail(exchange, err, headers);
    return;
  }
  if (out instanceof Promise) settle(out);
  else answer.reply(exchange, out, headers);
}

/**
 * Answers once `work` settles, counted in flight meanwhile (a graceful
 * shutdown waits for the count): the one way an answer computed later goes
 * out (the API's and the console's calls, a sign-in, an authentication
 * failure counted in Redis). One reaction, no `finally`: that would add a
 * promise, two closures and three microtasks to every asynchronous answer.
 */
export function settleLater(work: Promise<ApiReply>, exchange: Exchange, answer: Answer, headers: Headers, inflight: { count: number }): void {
  inflight.count++;
  watchAbort(exchange);
  work.then(
    (out) => {
      inflight.count--;
      answer.reply(exchange, out, headers);
    },
    (err) => {
      inflight.count--;
      answer.fail(exchange, err, headers);
    },
  );
}
