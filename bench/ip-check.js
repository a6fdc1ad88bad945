// bench:ip-check: GET /v1/ip/check for one address and POST /v1/ip/check with
// 50 addresses, against the bare uWebSockets.js TLS app answering a small JSON
// (what TLS and HTTP cost alone); one server thread, interleaved pairs.
// Reports CPU per request and, for the batch, per address.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { armsTable, canPin, startSplitguard, haveWrk, round, runPairs, startPinned, stopProcess, table, writeResult } from './lib.js';
import { luaScript } from './lua.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAIRS = Number(process.env.BENCH_PAIRS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
if (!haveWrk()) throw new Error('bench:ip-check needs wrk (apt-get install wrk)');

const sg = await startSplitguard('sg-bench-ipcheck-', { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' });
const server = sg.proc;
const key = sg.key;
const bare = await startPinned(0, [path.join(here, 'baselines/uws-json.js'), sg.certFile, sg.keyFile]);
const auth = `Authorization: Bearer ${key}`;
const ips = ['8.8.8.8', '1.1.1.1', '3.5.0.1', '80.128.0.1', '2001:4860:4860::8888', '::ffff:9.9.9.9', '52.95.110.1', '185.199.108.1', '104.16.0.1', '31.13.64.1'];
const batch = Array.from({ length: 50 }, (_, i) => ips[i % ips.length]);
const base = `https://127.0.0.1:${server.ports[0]}`;
const arms = {
  'GET /v1/ip/check': { proc: server, url: `${base}/v1/ip/check?ip=8.8.8.8`, headers: [auth] },
  'POST /v1/ip/check (50)': { proc: server, url: `${base}/v1/ip/check`, script: luaScript('POST', { ips: batch }, { Authorization: `Bearer ${key}` }) },
  'bare uWS TLS JSON': { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/v1/ip/check` },
};
const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });
const perAddress = round(stats['POST /v1/ip/check (50)'].cpuUsPerRequest.median / 50);
const result = {
  setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1 },
  arms: stats,
  cpuRatioSingleVsBare: ratio('GET /v1/ip/check', 'bare uWS TLS JSON', 'cpuUsPerRequest'),
  batchCpuUsPerAddress: perAddress,
  runs,
};
const file = writeResult('ip-check', result);
console.log(armsTable(stats));
console.log();
console.log(table(['figure', 'value'], [
  ['single check CPU / bare JSON CPU', result.cpuRatioSingleVsBare.median],
  ['batch CPU µs per address', perAddress],
]));
console.log(`results: ${file}`);
await stopProcess(bare);
await sg.close();
