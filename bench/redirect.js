// bench:redirect: the full redirect (route lookup, classification at level
// medium, sticky split, click recording) against a bare uWebSockets.js TLS
// app answering a 302 from a Map; one server thread each, interleaved pairs,
// server on CPU 0, wrk on CPU 1; node:https and fastify answering the same
// bare 302 as further baselines. Figures: splitguard's CPU per request <= 1.3x
// the bare uWS app's and <= 0.4x node:https's and fastify's, requests/s >= 2.5x
// theirs, p99 <= 5 ms at 100 connections, and every click counted.
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { armsTable, canPin, startSplitguard, haveWrk, runPairs, startPinned, stopProcess, table, writeResult } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAIRS = Number(process.env.BENCH_PAIRS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 100);
if (!haveWrk()) {
  console.error('bench:redirect needs wrk (apt-get install wrk)');
  process.exit(1);
}

const sg = await startSplitguard('sg-bench-redirect-');
const server = sg.proc;
const { key, ca } = sg;
const port = server.ports[0];

function api(method, url, body) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, method, path: url, ca, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const created = await api('POST', '/v1/routes', {
  name: 'bench', page_a: 'https://example.com/a', page_b: 'https://example.com/b', split_ratio: 0.5, intercept_level: 'medium',
});
if (created.status !== 201) throw new Error(`route creation failed: ${JSON.stringify(created)}`);
const { id, code } = created.json;
const baselineArgs = [sg.certFile, sg.keyFile, code, 'https://example.com/a'];
const bare = await startPinned(0, [path.join(here, 'baselines/uws-302.js'), ...baselineArgs]);
const nodeHttps = await startPinned(0, [path.join(here, 'baselines/node-https-302.js'), ...baselineArgs]);
const fastify = await startPinned(0, [path.join(here, 'baselines/fastify-302.js'), ...baselineArgs]);

// A returning visitor (steady state: the cookie is sent, no Set-Cookie).
const cookie = 'Cookie: sg_vid=AAAAAAAAAAAAAAAAAAAAAA';
const arms = {
  splitguard: { proc: server, url: `https://127.0.0.1:${port}/r/${code}`, headers: [cookie] },
  'bare uWS 302': { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/r/${code}`, headers: [cookie] },
  'node:https 302': { proc: nodeHttps, url: `https://127.0.0.1:${nodeHttps.ports[0]}/r/${code}`, headers: [cookie] },
  'fastify 302': { proc: fastify, url: `https://127.0.0.1:${fastify.ports[0]}/r/${code}`, headers: [cookie] },
};
const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });

// Every click counted. wrk counts the responses it received; requests still
// in flight when a run stops are served and counted by the server but not by
// wrk, at most one per connection per run. So: served <= counted <= served +
// connections x runs.
await new Promise((r) => setTimeout(r, 2500));
const detail = await api('GET', `/v1/routes/${id}`);
const counted = detail.json.stats.clicks.total;
const served = arms.splitguard.requests;
const wrkRuns = PAIRS + 1; // the warm-up run included
const everyClickCounted = counted >= served && counted <= served + CONNECTIONS * wrkRuns;

const cpuRatio = ratio('splitguard', 'bare uWS 302', 'cpuUsPerRequest');
const vsNode = { cpu: ratio('splitguard', 'node:https 302', 'cpuUsPerRequest'), rps: ratio('splitguard', 'node:https 302', 'rps') };
const vsFastify = { cpu: ratio('splitguard', 'fastify 302', 'cpuUsPerRequest'), rps: ratio('splitguard', 'fastify 302', 'rps') };
const result = {
  setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1, interceptLevel: 'medium', visitor: 'returning (cookie)' },
  arms: stats,
  cpuRatio,
  vsNodeHttps: vsNode,
  vsFastify,
  clicks: { served, counted, inFlightBound: CONNECTIONS * wrkRuns },
  goal: {
    cpuRatioVsBareUws: { goal: '<= 1.3', value: cpuRatio.median },
    cpuRatioVsNodeHttps: { goal: '<= 0.4', value: vsNode.cpu.median },
    cpuRatioVsFastify: { goal: '<= 0.4', value: vsFastify.cpu.median },
    rpsRatioVsNodeHttps: { goal: '>= 2.5', value: vsNode.rps.median },
    rpsRatioVsFastify: { goal: '>= 2.5', value: vsFastify.rps.median },
    p99Ms: { goal: '<= 5', value: stats.splitguard.p99ms.median },
    everyClickCounted,
  },
  runs,
};
const file = writeResult('redirect', result);
console.log(armsTable(stats));
console.log();
console.log(table(['goal', 'target', 'measured'], Object.entries(result.goal).filter(([, v]) => typeof v === 'object').map(([k, v]) => [k, v.goal, v.value])));
console.log(`clicks: ${served} received by wrk, ${counted} counted (in flight at run ends: at most ${CONNECTIONS * wrkRuns})${everyClickCounted ? '' : ' (MISMATCH)'}\nresults: ${file}`);
for (const p of [server, bare, nodeHttps, fastify]) await stopProcess(p);
await sg.close();
if (!everyClickCounted) process.exitCode = 1;
