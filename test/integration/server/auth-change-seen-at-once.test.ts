// A change to an account made through the API is in force on every thread
// from the moment its answer arrives, even for a request that follows within
// the same millisecond on an open connection: each thread keeps a memo of
// authenticated keys (and their accounts), and a committed change moves a
// shared signal that empties it. Here a rename on thread 0 is followed at
// once by GET /v1/account on thread 1 and on thread 0, many times over.
import https from 'node:https';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
const agents = [new https.Agent({ keepAlive: true, maxSockets: 1 }), new https.Agent({ keepAlive: true, maxSockets: 1 })];
beforeAll(async () => {
  server = await startServer({ threads: 2, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '5000' } });
});
afterAll(async () => {
  for (const a of agents) a.destroy();
  await server?.close();
});

it('every GET right after a rename shows the new name, on both threads', async () => {
  const [p0, p1] = server.ports;
  const on = (thread: number, method: string, json?: unknown) =>
    request({ port: thread === 0 ? p0 : p1, ca: server.ca, method, path: '/v1/account', key: server.apiKey, json, agent: agents[thread] });
  // Warm both connections and both threads' memos.
  expect((await on(0, 'GET')).status).toBe(200);
  expect((await on(1, 'GET')).status).toBe(200);
  const stale: string[] = [];
  for (let i = 0; i < 200; i++) {
    const name = `renamed ${i}`;
    const put = await on(0, 'PUT', { name });
    expect(put.status).toBe(200);
    const [other, same] = await Promise.all([on(1, 'GET'), on(0, 'GET')]);
    if (other.json.name !== name) stale.push(`thread 1 after ${i}: ${other.json.name}`);
    if (same.json.name !== name) stale.push(`thread 0 after ${i}: ${same.json.name}`);
  }
  expect(stale).toEqual([]);
});
