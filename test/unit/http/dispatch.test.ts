// The one dispatcher (src/http/dispatch.ts), driven without a socket: the
// exchange's response is a recorder of what uWS would be asked (onAborted,
// onData), and the answers are collected. Admin-only endpoints do not exist
// for other callers, a path of other methods is 405 with Allow, bodies are
// read and parsed only for endpoints that take one (an optional body may be
// empty under any Content-Type), handler errors become failures, and the
// in-flight count returns to zero.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { type Answer, dispatch } from '../../../src/http/dispatch.js';
import type { RequestBasics } from '../../../src/http/request.js';
import { type Exchange, type Headers, openExchange } from '../../../src/http/respond.js';
import { type ApiReply, EndpointTable } from '../../../src/http/endpoint-table.js';
import type { HttpResponse } from '../../../src/http/uws.js';
import type { Account } from '../../../src/store/db.js';

const ACCOUNT = { id: 7, name: 'test' } as unknown as Account;

/** A response that records the handlers uWS would be given, and feeds body chunks on request. */
function fakeResponse() {
  let onData: ((chunk: ArrayBuffer, last: boolean) => void) | null = null;
  const res = {
    onAborted: () => res,
    onData: (fn: (chunk: ArrayBuffer, last: boolean) => void) => {
      onData = fn;
    },
  };
  const feed = (...parts: string[]) =>
    parts.forEach((p, i) => {
      const bytes = new TextEncoder().encode(p);
      onData!(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), i === parts.length - 1);
    });
  return { res: res as unknown as HttpResponse, feed };
}

interface Outcome {
  reply?: ApiReply;
  error?: AppError;
  headers: Headers;
}

function run(table: EndpointTable, call: Partial<RequestBasics>, admin = false, body?: string[]) {
  const { res, feed } = fakeResponse();
  const exchange: Exchange = openExchange(res);
  const inflight = { count: 0 };
  let settle!: (o: Outcome) => void;
  const done = new Promise<Outcome>((r) => (settle = r));
  const answer: Answer = {
    reply: (_x, out, headers) => settle({ reply: out, headers }),
    fail: (_x, err, headers) => settle({ error: err as AppError, headers }),
  };
  const basics: RequestBasics = { method: 'GET', path: '/v1/exchange', query: '', contentType: '', contentLength: '', authorization: '', ifMatch: null, ...call };
  dispatch(table, exchange, basics, basics.path, { account: ACCOUNT, admin }, answer, {}, inflight);
  if (body) feed(...body);
  return { done, inflight };
}

const table = new EndpointTable()
  .add('GET', '/v1/things/:id', (req) => ({ status: 200, body: { id: req.params.id, account: req.account.id } }))
  .add('DELETE', '/v1/things/:id', () => {
    throw new AppError('not_found', 'no such thing');
  })
  .add('POST', '/v1/things', async (req) => ({ status: 201, body: req.body }), { body: true })
  .add('POST', '/v1/refresh', (req) => ({ status: 202, body: { got: req.body ?? null } }), { body: 'optional' })
  .add('GET', '/v1/admin/secrets', () => ({ status: 200, body: 'secret' }), { admin: true });

describe('dispatch', () => {
  it('runs a handler with the path parameters and the caller', async () => {
    const { done } = run(table, { path: '/v1/things/42' });
    expect((await done).reply).toEqual({ status: 200, body: { id: '42', account: 7 } });
  });

  it('hides an admin endpoint from other callers (404, not 405) and runs it for admins', async () => {
    expect((await run(table, { path: '/v1/admin/secrets' }).done).error?.code).toBe('not_found');
    expect((await run(table, { path: '/v1/admin/secrets' }, true).done).reply?.body).toBe('secret');
  });

  it('answers a path of other methods with 405 and Allow', async () => {
    const o = await run(table, { method: 'PUT', path: '/v1/things/1' }).done;
    expect(o.error?.code).toBe('method_not_allowed');
    expect(o.headers.Allow).toBe('GET, DELETE');
  });

  it('turns a thrown AppError into a failure', async () => {
    expect((await run(table, { method: 'DELETE', path: '/v1/things/1' }).done).error?.message).toBe('not found: no such thing');
  });

  it('reads and parses a JSON body in chunks, and counts the call in flight until it is answered', async () => {
    const { done, inflight } = run(table, { method: 'POST', path: '/v1/things', contentType: 'application/json', contentLength: '13' }, false, ['{"name"', ':"exchange"}']);
    expect(inflight.count).toBe(1);
    expect((await done).reply).toEqual({ status: 201, body: { name: 'exchange' } });
    await new Promise((r) => setImmediate(r));
    expect(inflight.count).toBe(0);
  });

  it('refuses a body endpoint called with another Content-Type before reading', async () => {
    const o = await run(table, { method: 'POST', path: '/v1/things', contentType: 'text/plain' }).done;
    expect(o.error).toMatchObject({ code: 'invalid_parameter', field: 'Content-Type' });
  });

  it('takes an empty optional body under any Content-Type, and a JSON one when sent', async () => {
    const empty = await run(table, { method: 'POST', path: '/v1/refresh', contentType: 'application/x-www-form-urlencoded', contentLength: '0' }, false, ['']).done;
    expect(empty.reply).toEqual({ status: 202, body: { got: null } });
    const sent = await run(table, { method: 'POST', path: '/v1/refresh', contentType: 'application/json' }, false, ['{"a":1}']).done;
    expect(sent.reply).toEqual({ status: 202, body: { got: { a: 1 } } });
    const form = await run(table, { method: 'POST', path: '/v1/refresh', contentType: 'text/plain' }, false, ['a=1']).done;
    expect(form.error?.field).toBe('Content-Type');
  });

  it('fails a body that is not JSON with invalid_json', async () => {
    const o = await run(table, { method: 'POST', path: '/v1/things', contentType: 'application/json' }, false, ['{nope']).done;
    expect(o.error?.code).toBe('invalid_json');
  });
});
