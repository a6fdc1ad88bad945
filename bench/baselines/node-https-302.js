// Baseline: node:https answering GET /r/:code with a 302 from a Map.
import https from 'node:https';
import { readFileSync } from 'node:fs';

const [, , certFile, keyFile, code, target] = process.argv;
const routes = new Map([[code, target]]);
const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
  const location = req.url?.startsWith('/r/') ? routes.get(req.url.slice(3).split('?')[0]) : undefined;
  if (location === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(302, { Location: location, 'Cache-Control': 'private, no-store' }).end();
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ event: 'listening', ports: [server.address().port] })}\n`);
});
