// Baseline: fastify (over node:https) answering GET /r/:code with a 302 from a Map.
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const [, , certFile, keyFile, code, target] = process.argv;
const routes = new Map([[code, target]]);
const app = Fastify({ https: { cert: readFileSync(certFile), key: readFileSync(keyFile) }, logger: false, keepAliveTimeout: 65_000 });
app.get('/r/:code', (req, reply) => {
  const location = routes.get(req.params.code);
  if (location === undefined) return reply.code(404).send();
  return reply.header('Cache-Control', 'private, no-store').redirect(location, 302);
});
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ event: 'listening', ports: [app.server.address().port] })}\n`);
