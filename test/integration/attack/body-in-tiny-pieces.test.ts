// A request body sent in more than BODY_PIECES pieces (a chunked body of
// one-byte chunks) is refused with 400 naming the body, and its connection
// closed: each piece was a call into JavaScript and a Buffer kept until the
// end, so 60,000 one-byte chunks cost 80-120 ms of the thread and 20 MiB
// held per connection, on the console's sign-in and session-less paths
// without any limit (docs/reliability.md, finding 99). The same bytes in a
// few pieces are read as before.
import { expect, it } from 'vitest';
import { consoleSession } from '../../helpers/console-session.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { api, createRoute, useRedirectServer } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

const sg = useRedirectServer();
const PIECES = 3000;

/** A chunked POST (or another method) whose JSON body arrives in `pieces` chunks. */
function chunked(path: string, json: string, pieces: number, extra = '', method = 'POST'): string {
  const padded = json.padEnd(pieces, ' ');
  const size = Math.ceil(padded.length / pieces);
  let body = '';
  for (let at = 0; at < padded.length; at += size) {
    const piece = padded.slice(at, at + size);
    body += `${piece.length.toString(16)}\r\n${piece}\r\n`;
  }
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\n${extra}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body}0\r\n\r\n`;
}

const send = (bytes: string) => rawRequest(bytes, { port: sg.server.ports[0], ca: sg.server.ca, timeoutMs: 10_000 });

it.each([
  ['the console sign-in', '/console/api/session/login', JSON.stringify({ email: 'a@b.c', password: 'wrong password' }), ''],
  ['a console change without a session', '/console/api/keys', JSON.stringify({ name: 'k' }), ''],
  ['an API call with a key', '/v1/ip/check', JSON.stringify({ ips: ['8.8.8.8'] }), 'auth'],
])('refuses %s sent a byte a piece, naming the body, and closes', async (_, path, json, auth) => {
  const answer = await send(chunked(path, json, PIECES, auth ? `Authorization: Bearer ${sg.server.apiKey}\r\n` : ''));
  expect(answer.status, answer.raw.slice(0, 300)).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid_parameter', field: 'body' });
  expect(answer.headers.some(([n, v]) => n.toLowerCase() === 'connection' && v === 'close')).toBe(true);
});

it('reads the same bodies sent in a few pieces', async () => {
  const check = await send(chunked('/v1/ip/check', JSON.stringify({ ips: ['8.8.8.8'] }), 8, `Authorization: Bearer ${sg.server.apiKey}\r\n`));
  expect(check.status, check.raw.slice(0, 300)).toBe(200);
  const login = await send(chunked('/console/api/session/login', JSON.stringify({ email: 'a@b.c', password: 'wrong password' }), 8));
  expect(login.status, login.raw.slice(0, 300)).toBe(401);
});

it('refuses such a body on a signed-in console call too, and runs nothing of it', async () => {
  const boot = readBootstrap(sg.server.dataDir);
  const session = await consoleSession(sg.server, boot.admin_email, boot.admin_password);
  const signedIn = `Cookie: ${session.cookie}\r\nX-CSRF-Token: ${session.csrf}\r\nOrigin: https://x\r\n`;
  // An endpoint that does not exist: before, its 404 went out while the pieces still came, and no more was refused.
  const missing = await send(chunked('/console/api/nope', JSON.stringify({ a: 1 }), PIECES, signedIn));
  expect(missing.status, missing.raw.slice(0, 300)).toBe(400);
  expect(JSON.parse(missing.body)).toMatchObject({ code: 'invalid_parameter', field: 'body' });
  // A deletion, which takes no body: before, it ran while the pieces came, and the refusal then denied what it had done.
  const route = await createRoute(sg.server, { intercept_level: 'off' });
  const deletion = await send(chunked(`/console/api/v1/routes/${route.id}`, JSON.stringify({ a: 1 }), PIECES, signedIn, 'DELETE'));
  expect(deletion.status, deletion.raw.slice(0, 300)).toBe(400);
  expect((await api(sg.server, 'GET', `/v1/routes/${route.id}`)).status).toBe(200);
});
