// Baseline: a bare uWebSockets.js TLS app answering every request with a
// fixed small JSON body: what the HTTP layer costs before splitguard does
// anything (no auth, no rate limit, no storage).
import { uws } from '../../dist/http/uws.js';

const [, , certFile, keyFile, portArg] = process.argv;
const body = JSON.stringify({ id: 1, name: 'default', quota: 1000, routes_created: 0, quota_remaining: 1000, created_at: '2026-11-21T10:00:00.000Z' });
uws
  .SSLApp({ cert_file_name: certFile, key_file_name: keyFile })
  .any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json; charset=utf-8').writeHeader('Cache-Control', 'no-store').end(body);
    });
  })
  .listen('127.0.0.1', Number(portArg || 0), (token) => {
    if (!token) process.exit(1);
    process.stdout.write(`${JSON.stringify({ event: 'listening', ports: [uws.us_socket_local_port(token)] })}\n`);
  });
