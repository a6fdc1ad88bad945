// bench:server: an authenticated GET /v1/account (auth + rate limit + small
// JSON) against a bare uWebSockets.js TLS app answering the same JSON, one
// server thread each, interleaved pairs. Server pinned to CPU 0, wrk to CPU 1.
// Figure (issue 3): splitguard's CPU per request <= 1.5x the bare app's.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { armsTable, canPin, startSplitguard, haveWrk, runPairs, startPinned, stopProcess, writeResult } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// 7 pairs: the service's arm varies more from run to run than the bare app's
// (its GC and its own timers share the pinned core), so its median needs more.
const PAIRS = Number(process.env.BENCH_PAIRS || 7);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);

if (!haveWrk()) {
  console.error('bench:server needs wrk (apt-get install wrk)');
  process.exit(1);
}

const sg = await startSplitguard('sg-bench-server-', { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' });
const server = sg.proc;
const key = sg.key;
const bare = await startPinned(0, [path.join(here, 'baselines/uws-json.js'), sg.certFile, sg.keyFile]);

const arms = {
  splitguard: { proc: server, url: `https://127.0.0.1:${server.ports[0]}/v1/account`, headers: [`Authorization: Bearer ${key}`] },
  'bare uWS TLS': { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/v1/account`, headers: [] },
};

const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });
const cpuRatio = ratio('splitguard', 'bare uWS TLS', 'cpuUsPerRequest');
const result = {
  setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1 },
  arms: stats,
  cpuRatio,
  goal: { cpuRatio: '<= 1.5', value: cpuRatio.median },
  runs,
};
const file = writeResult('server', result);
console.log(armsTable(stats));
console.log(`\nCPU per request, splitguard / bare (median of ${PAIRS} pairs): ${result.goal.value} (goal ${result.goal.cpuRatio})\nresults: ${file}`);
await stopProcess(bare);
await sg.close();
