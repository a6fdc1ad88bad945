// Baseline: a bare uWebSockets.js TLS app answering GET /r/:code with a 302
// to a URL held in an in-memory Map: the least a redirect service can do.
// It reads nothing of the request but the code, and answers with the same
// headers and body as splitguard's redirect (Location, Cache-Control,
// Strict-Transport-Security, Content-Type, the 6-byte body), as bytes
// encoded once; under /n/:code it also
// sets a visitor cookie of the same length as splitguard's for a new
// visitor (a constant: choosing an id is splitguard's work, sending it is
// protocol work both pay).
//   node uws-302.js <cert> <key> <location> <code> [code ...]
import { uws } from '../../dist/http/uws.js';

const [, , certFile, keyFile, target, ...codes] = process.argv;
const latin1 = (s) => Buffer.from(s, 'latin1');
const routes = new Map(codes.map((c) => [c, latin1(target)]));
const STATUS = latin1('302 Found');
const LOCATION = latin1('Location');
const CACHE_CONTROL = latin1('Cache-Control');
const PRIVATE_NO_STORE = latin1('private, no-store');
const HSTS = latin1('Strict-Transport-Security');
const HSTS_VALUE = latin1('max-age=31536000');
const SET_COOKIE = latin1('Set-Cookie');
const CONTENT_TYPE = latin1('Content-Type');
const PLAIN_TEXT = latin1('text/plain; charset=utf-8');
const BODY = latin1('Found\n');
const COOKIE = latin1('sg_vid=AAAAAAAAAAAAAAAAAAAAAA; Max-Age=31536000; Path=/; HttpOnly; Secure; SameSite=Lax');

const answer = (res, req, cookie) => {
  const location = routes.get(req.getParameter(0));
  if (location === undefined) {
    res.writeStatus('404 Not Found').end();
    return;
  }
  res.writeStatus(STATUS).writeHeader(LOCATION, location).writeHeader(CACHE_CONTROL, PRIVATE_NO_STORE).writeHeader(HSTS, HSTS_VALUE);
  if (cookie) res.writeHeader(SET_COOKIE, COOKIE);
  res.writeHeader(CONTENT_TYPE, PLAIN_TEXT).end(BODY);
};

uws
  .SSLApp({ cert_file_name: certFile, key_file_name: keyFile })
  .get('/r/:code', (res, req) => answer(res, req, false))
  .get('/n/:code', (res, req) => answer(res, req, true))
  .listen('127.0.0.1', 0, (token) => {
    if (!token) process.exit(1);
    process.stdout.write(`${JSON.stringify({ event: 'listening', ports: [uws.us_socket_local_port(token)] })}\n`);
  });
