// bench:api: route create, read, list and update through the real API (rate
// limit raised, an account with a large quota), against the bare
// uWebSockets.js TLS app answering a small JSON; one server thread,
// interleaved runs.
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { armsTable, canPin, startSplitguard, haveWrk, runPairs, startPinned, stopProcess, writeResult } from './lib.js';
import { luaScript } from './lua.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAIRS = Number(process.env.BENCH_PAIRS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
if (!haveWrk()) throw new Error('bench:api needs wrk (apt-get install wrk)');

const sg = await startSplitguard('sg-bench-api-', { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' });
const server = sg.proc;
const env = sg.env;
const created = JSON.parse(execFileSync(process.execPath, [path.join(here, '../bin/splitguard.js'), 'account', 'create', '--name', 'bench', '--quota', '999999999'], { env: { ...process.env, ...env }, encoding: 'utf8' }));
const key = created.api_key;
const ca = sg.ca;
const port = server.ports[0];
const body = { name: 'bench route', page_a: 'https://example.com/a', page_b: 'https://example.com/b', split_ratio: 0.5 };
const first = await new Promise((resolve, reject) => {
  const req = https.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/routes', ca, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } }, (res) => {
    let t = '';
    res.on('data', (d) => (t += d));
    res.on('end', () => resolve(JSON.parse(t)));
  });
  req.on('error', reject);
  req.end(JSON.stringify(body));
});
const bare = await startPinned(0, [path.join(here, 'baselines/uws-json.js'), sg.certFile, sg.keyFile]);
const auth = { Authorization: `Bearer ${key}` };
const base = `https://127.0.0.1:${port}`;
const arms = {
  'create (POST /v1/routes)': { proc: server, url: `${base}/v1/routes`, script: luaScript('POST', body, auth) },
  'read (GET /v1/routes/:id)': { proc: server, url: `${base}/v1/routes/${first.id}`, script: luaScript('GET', undefined, auth) },
  'list (GET /v1/routes?limit=20)': { proc: server, url: `${base}/v1/routes?page=1&limit=20`, script: luaScript('GET', undefined, auth) },
  'update (PUT /v1/routes/:id)': { proc: server, url: `${base}/v1/routes/${first.id}`, script: luaScript('PUT', { split_ratio: 0.4 }, auth) },
  'bare uWS TLS JSON': { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/v1/routes` },
};
const { runs, stats } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });
const result = { setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1 }, arms: stats, runs };
const file = writeResult('api', result);
console.log(armsTable(stats));
console.log(`results: ${file}`);
await stopProcess(bare);
await sg.close();
