// Baseline: a bare uWebSockets.js TLS app answering GET /r/:code with a 302
// to a URL held in an in-memory Map: the least a redirect service can do.
import { uws } from '../../dist/http/uws.js';

const [, , certFile, keyFile, code, target] = process.argv;
const routes = new Map([[code, target]]);
uws
  .SSLApp({ cert_file_name: certFile, key_file_name: keyFile })
  .get('/r/:code', (res, req) => {
    const location = routes.get(req.getParameter(0));
    if (location === undefined) {
      res.writeStatus('404 Not Found').end();
      return;
    }
    res.writeStatus('302 Found').writeHeader('Location', location).writeHeader('Cache-Control', 'private, no-store').end();
  })
  .listen('127.0.0.1', 0, (token) => {
    if (!token) process.exit(1);
    process.stdout.write(`${JSON.stringify({ event: 'listening', ports: [uws.us_socket_local_port(token)] })}\n`);
  });
