// bench:server: an authenticated GET /v1/account (auth + rate limit + small
// JSON) against a bare uWebSockets.js TLS app answering the same JSON, one
// server thread each, interleaved pairs. Server pinned to CPU 0, wrk to CPU 1.
// Figure (issue 3): splitguard's CPU per request <= 1.5x the bare app's.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, cpuSeconds, freshDataDir, haveWrk, median, round, runWrk, startPinned, stopProcess, summary, table, writeResult } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAIRS = Number(process.env.BENCH_PAIRS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);

if (!haveWrk()) {
  console.error('bench:server needs wrk (apt-get install wrk)');
  process.exit(1);
}

const dataDir = await freshDataDir('sg-bench-server-');
const server = await startPinned(0, [path.join(here, '../bin/splitguard.js'), 'serve'], {
  SPLITGUARD_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  SPLITGUARD_THREADS: '1',
  SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000',
});
const { api_key: key } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
const cert = path.join(dataDir, 'tls/cert.pem');
const tlsKey = path.join(dataDir, 'tls/key.pem');
const bare = await startPinned(0, [path.join(here, 'baselines/uws-json.js'), cert, tlsKey]);

const arms = {
  splitguard: { proc: server, url: `https://127.0.0.1:${server.ports[0]}/v1/account`, headers: [`Authorization: Bearer ${key}`] },
  'bare uWS TLS': { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/v1/account`, headers: [] },
};

function measure(arm, seconds) {
  const before = cpuSeconds(arm.proc.pid);
  const r = runWrk({ url: arm.url, seconds, connections: CONNECTIONS, headers: arm.headers });
  const cpu = cpuSeconds(arm.proc.pid) - before;
  if (r.non2xx > 0 || r.socketErrors > 0) throw new Error(`errors during the run: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors\n${r.raw}`);
  return { rps: round(r.rps), p50: r.p50, p99: r.p99, requests: r.requests, cpuUsPerRequest: round((cpu * 1e6) / r.requests) };
}

for (const arm of Object.values(arms)) measure(arm, 2); // warm-up
const runs = Object.fromEntries(Object.keys(arms).map((k) => [k, []]));
for (let p = 0; p < PAIRS; p++) for (const [name, arm] of Object.entries(arms)) runs[name].push(measure(arm, SECONDS));

const ratios = runs.splitguard.map((r, i) => r.cpuUsPerRequest / runs['bare uWS TLS'][i].cpuUsPerRequest);
const stat = (name, field) => summary(runs[name].map((r) => r[field]));
const result = {
  setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1 },
  arms: Object.fromEntries(Object.keys(arms).map((n) => [n, { rps: stat(n, 'rps'), p50ms: stat(n, 'p50'), p99ms: stat(n, 'p99'), cpuUsPerRequest: stat(n, 'cpuUsPerRequest') }])),
  cpuRatio: summary(ratios),
  goal: { cpuRatio: '<= 1.5', value: round(median(ratios)) },
  runs,
};
const file = writeResult('server', result);
console.log(table(
  ['arm', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req'],
  Object.entries(result.arms).map(([n, a]) => [n, a.rps.median, a.p50ms.median, a.p99ms.median, a.cpuUsPerRequest.median]),
));
console.log(`\nCPU per request, splitguard / bare (median of ${PAIRS} pairs): ${result.goal.value} (goal ${result.goal.cpuRatio})\nresults: ${file}`);
await stopProcess(server);
await stopProcess(bare);
rmSync(dataDir, { recursive: true, force: true });
