// bench:swap: redirect latency while the IP database is swapped under load.
// One server thread pinned to CPU 0, wrk pinned to CPU 1, a route at level
// medium visited by a data-center address (X-Forwarded-For 8.8.8.8 from a
// trusted loopback proxy, so every redirect needs the database). Three
// rounds, each of three wrk runs of the same length, one after the other:
//
//   steady   the load alone: the baseline, measured in every round
//   builds   the load while `ipdb build` compiles the same sources: the CPU
//            of a refresh without an install or a swap (the control that
//            separates the build's cost from the swap's)
//   swaps    the load while `ipdb refresh` runs against a loopback source
//            whose ETag changes each time (so it downloads, builds and
//            installs); the server picks the install up and swaps to it
//            under the load
//
// Interleaving keeps drifting background load out of the comparison; the
// spread of the steady p99 over the rounds is the noise floor.
//
// The commands run on CPU 1 beside wrk at nice 19 (SWAP_CLI_CPU and
// SWAP_CLI_NICE to change): the server's core sees only what the server
// itself does for a swap, and wrk keeps its core when it needs it.
//
// The load is paced: each connection waits SWAP_DELAY_MS (default 1) after
// each answer before its next request (wrk's delay() hook), which holds the
// server near half its capacity, as a production server runs. Unpaced
// (SWAP_DELAY_MS=0) wrk saturates both cores and the refresh's 3-5 s of CPU
// has none to run on: niced it waits until the load ends; at normal
// priority it takes wrk's core, and the p99 that wrk then reports is wrk's
// own queueing (4x steady from the build alone, before any swap).
//
// Figure (issue): zero errors, three swaps observed, and p99 during the
// swaps <= 2x the steady p99 (the median over the rounds of swaps p99 /
// steady p99). Every visit must also have been answered from a database:
// the route's stats must count each one as intercepted by the ASN
// blacklist, none failed open.
//
// wrk measures closed-loop (a stalled server also stalls the load, so a
// pause hides in few samples); max and p99.9 are reported beside p99 for that.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, cpuSeconds, freshDataDir, haveWrk, round, startPinned, stopProcess, summary, table, writeResult } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const BIN = path.join(root, 'bin/splitguard.js');
const SECONDS = Number(process.env.BENCH_SECONDS || 0); // 0: long enough for a refresh
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const CLI_CPU = Number(process.env.SWAP_CLI_CPU ?? 1);
const CLI_NICE = Number(process.env.SWAP_CLI_NICE ?? 19);
const DELAY_MS = Number(process.env.SWAP_DELAY_MS ?? 1);
const CLI_IDLE = process.env.SWAP_CLI_IDLE !== '0';
const REFRESHES = 3;
if (!haveWrk()) {
  console.error('bench:swap needs wrk (apt-get install wrk)');
  process.exit(1);
}

// ---- a loopback source: the installed package files, a new ETag each answer
const pkgDir = path.join(root, 'node_modules/@ip-location-db/asn');
const files = { 'asn-ipv4.csv': readFileSync(path.join(pkgDir, 'asn-ipv4.csv')), 'asn-ipv6.csv': readFileSync(path.join(pkgDir, 'asn-ipv6.csv')) };
let served = 0;
const source = http.createServer((req, res) => {
  const body = files[path.basename(req.url ?? '')];
  if (!body) return res.writeHead(404).end();
  served++;
  res.writeHead(200, { 'Content-Length': body.length, ETag: `"${Date.now()}-${served}"` });
  res.end(body);
});
await new Promise((r) => source.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${source.address().port}`;
const node = `${base}/asn-ipv4.csv|${base}/asn-ipv6.csv`;

// ---- the server
const dataDir = await freshDataDir('sg-bench-swap-');
const serverEnv = {
  SPLITGUARD_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1',
  SPLITGUARD_TRUST_PROXY: '127.0.0.1/32', SPLITGUARD_RATE_LIMIT_PER_MIN: '1000000', SPLITGUARD_IPDB_SOURCES: node,
};
const server = await startPinned(0, [BIN, 'serve'], serverEnv);
const { api_key: key } = JSON.parse(readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
const ca = readFileSync(path.join(dataDir, 'tls/cert.pem'));
const port = server.ports[0];
const agent = new https.Agent({ keepAlive: true, maxSockets: 2, ca });

function api(method, url, body) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, method, path: url, agent, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, json: /json/.test(res.headers['content-type'] ?? '') ? JSON.parse(text) : null, text }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
const metric = async (sample) => {
  const { text } = await api('GET', '/metrics');
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
};

const created = await api('POST', '/v1/routes', {
  name: 'bench swap', page_a: 'https://example.com/a', page_b: 'https://example.com/b', split_ratio: 0, default_group: 'a', intercept_level: 'medium',
});
if (created.status !== 201) throw new Error(`route creation failed: ${JSON.stringify(created.json)}`);
const { id: routeId, code } = created.json;

// ---- wrk, asynchronously (the source server and the swap watcher run meanwhile)
const scratch = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-swap-wrk-'));
const script = path.join(scratch, 'report.lua');
writeFileSync(
  script,
  `${DELAY_MS > 0 ? `delay = function() return ${DELAY_MS} end\n` : ''}done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK {\\"requests\\":%d,\\"p50\\":%d,\\"p99\\":%d,\\"p999\\":%d,\\"max\\":%d,\\"status\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"timeout\\":%d}\\n",
    summary.requests, latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, e.status, e.connect, e.read, e.write, e.timeout))
end
`,
);

function wrk(seconds) {
  const args = ['-t', '1', '-c', String(CONNECTIONS), '-d', `${seconds}s`, '-s', script,
    '-H', 'X-Forwarded-For: 8.8.8.8', '-H', 'Cookie: sg_vid=AAAAAAAAAAAAAAAAAAAAAA', `https://127.0.0.1:${port}/r/${code}`];
  const child = canPin ? spawn('taskset', ['-c', '1', 'wrk', ...args]) : spawn('wrk', args);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const cpu0 = cpuSeconds(server.pid);
  return new Promise((resolve, reject) => {
    child.on('exit', () => {
      const line = out.split('\n').find((l) => l.startsWith('WRK '));
      if (!line) return reject(new Error(`wrk printed no report:\n${out}`));
      const r = JSON.parse(line.slice(4));
      const ms = (us) => round(us / 1000, 3);
      resolve({
        seconds, requests: r.requests, rps: round(r.requests / seconds), p50ms: ms(r.p50), p99ms: ms(r.p99), p999ms: ms(r.p999), maxms: ms(r.max),
        errors: r.status + r.connect + r.read + r.write + r.timeout,
        errorDetail: { non2xx3xx: r.status, connect: r.connect, read: r.read, write: r.write, timeout: r.timeout },
        serverCpuUsPerRequest: round(((cpuSeconds(server.pid) - cpu0) * 1e6) / r.requests),
      });
    });
    child.on('error', reject);
  });
}

/** Runs `splitguard args` on the CLI core; resolves with its stdout, rejects on a non-zero exit. */
function command(args) {
  const env = { ...process.env, SPLITGUARD_DATA_DIR: dataDir, SPLITGUARD_IPDB_SOURCES: node };
  // SCHED_IDLE (chrt -i): any runnable normal task preempts the command at
  // once, where nice 19 alone still lets it hold a core for a slice (p99 of
  // the build-only control rose 2-4x with nice alone).
  const niced = ['nice', '-n', String(CLI_NICE), process.execPath, BIN, ...args];
  const argv = CLI_IDLE ? ['chrt', '-i', '0', ...niced] : niced;
  const child = canPin ? spawn('taskset', ['-c', String(CLI_CPU), ...argv], { env }) : spawn(argv[0], argv.slice(1), { env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) =>
    child.on('exit', (c) => (c === 0 ? resolve(out) : reject(new Error(`splitguard ${args.join(' ')} exited ${c}\n${out}${err}`)))),
  );
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const builtAt = async () => (await api('GET', '/v1/ip/database')).json.built_at;

/** Waits until the server serves a database other than `previous`; returns the new built_at. */
async function swapped(previous, timeoutMs = 15_000) {
  const t0 = Date.now();
  for (;;) {
    const now = await builtAt();
    if (now !== previous) return now;
    if (Date.now() - t0 > timeoutMs) throw new Error(`no swap within ${timeoutMs} ms`);
    await sleep(50);
  }
}

// A refresh before measuring: checks the path works, warms the page cache
// and the source, and times one refresh so the phases can be long enough.
const t = performance.now();
let current = await builtAt();
await command(['ipdb', 'refresh']);
current = await swapped(current);
const refreshMs = performance.now() - t;
// The niced command gets the wrk core's spare time only: allow for that.
const seconds = SECONDS || Math.ceil((refreshMs * 2.5) / 1000) + 3;
console.log(`one refresh + swap takes ${Math.round(refreshMs)} ms without load; ${REFRESHES} rounds of 3 x ${seconds} s with ${CONNECTIONS} connections`);

const warm = await wrk(3);
const loadBefore = os.loadavg()[0];
const swapsBefore = await metric('splitguard_ipdb_swaps_total');
const rounds = [];
for (let i = 0; i < REFRESHES; i++) {
  const steady = await wrk(seconds);

  // Control: the same compilation work, installing nothing.
  let load = wrk(seconds);
  await sleep(1000);
  let t0 = performance.now();
  await command(['ipdb', 'build', '--out', path.join(scratch, `control-${i}.trie`), path.join(pkgDir, 'asn-ipv4.csv'), path.join(pkgDir, 'asn-ipv6.csv')]);
  const buildMs = Math.round(performance.now() - t0);
  const builds = await load;

  // The figure: a refresh, installed and swapped in under the load.
  load = wrk(seconds);
  const loadStarted = performance.now();
  await sleep(1000);
  t0 = performance.now();
  const out = await command(['ipdb', 'refresh']);
  const record = JSON.parse(out.slice(out.search(/^\{$/m))); // after the one-line JSON log
  if (record.outcome !== 'updated') throw new Error(`refresh ${i + 1}: ${JSON.stringify(record)}`);
  const installed = performance.now();
  current = await swapped(current);
  const swap = {
    refreshMs: Math.round(installed - t0),
    swapSeenAfterMs: Math.round(performance.now() - installed),
    atS: round((performance.now() - loadStarted) / 1000, 1),
  };
  const swaps = { ...(await load), ...swap };
  rounds.push({ steady, builds: { ...builds, buildMs }, swaps, p99Ratio: round(swaps.p99ms / steady.p99ms) });
}
const loadAfter = os.loadavg()[0];
const swapsInWindow = rounds.filter((r) => r.swaps.atS < seconds).length;
const swapsCounted = (await metric('splitguard_ipdb_swaps_total')) - swapsBefore;

// Every visit answered from a database: intercepted by the blacklist, none failed open.
await sleep(2500);
const stats = (await api('GET', `/v1/routes/${routeId}`)).json.stats;
const visits = warm.requests + rounds.reduce((a, r) => a + r.steady.requests + r.builds.requests + r.swaps.requests, 0);
const wrongAnswers = stats.groups.a + stats.groups.b + stats.rule_hits.check_failed;

const phaseStats = Object.fromEntries(
  ['steady', 'builds', 'swaps'].map((phase) => {
    const runs = rounds.map((r) => r[phase]);
    const s = (f) => summary(runs.map((x) => x[f]));
    return [phase, { rps: s('rps'), p50ms: s('p50ms'), p99ms: s('p99ms'), p999ms: s('p999ms'), maxms: s('maxms'), serverCpuUsPerRequest: s('serverCpuUsPerRequest'), errors: runs.reduce((a, x) => a + x.errors, 0) }];
  }),
);
const ratio = summary(rounds.map((r) => r.p99Ratio));
const errors = Object.values(phaseStats).reduce((a, p) => a + p.errors, 0) + warm.errors;
const ok = errors === 0 && swapsInWindow === REFRESHES && swapsCounted === REFRESHES && ratio.median <= 2 && wrongAnswers === 0;
const result = {
  setup: {
    seconds, rounds: REFRESHES, connections: CONNECTIONS, pinned: canPin, serverThreads: 1, serverCpu: 0, wrkCpu: 1, commandCpu: CLI_CPU, commandNice: CLI_NICE, commandSchedIdle: CLI_IDLE, delayMsPerConnection: DELAY_MS,
    interceptLevel: 'medium', visitor: '8.8.8.8 via X-Forwarded-For (blacklisted ASN), returning (cookie)',
    refreshMsWithoutLoad: Math.round(refreshMs),
    // The machine's 1-minute load average: well above 2 means other work shared the two cores.
    loadAverage: { before: round(loadBefore), after: round(loadAfter) },
  },
  phases: phaseStats,
  p99Ratio: ratio,
  noiseFloor: { steadyP99MaxOverMin: round(phaseStats.steady.p99ms.max / phaseStats.steady.p99ms.min) },
  swapsObserved: swapsInWindow,
  swapsCounted,
  clicks: { sent: visits, total: stats.clicks.total, intercepted: stats.intercepted, asnBlacklist: stats.rule_hits.asn_blacklist, failedOpen: stats.rule_hits.check_failed, split: stats.groups },
  goal: {
    errors: { goal: '0', value: errors },
    p99SwapsOverSteady: { goal: '<= 2', value: ratio.median },
    swapsObserved: { goal: String(REFRESHES), value: swapsInWindow },
    wrongAnswers: { goal: '0', value: wrongAnswers },
    met: ok,
  },
  rounds,
};
const file = writeResult('swap', result);
console.log(
  table(
    ['phase (median of rounds)', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'errors', 'server CPU µs/req'],
    Object.entries(phaseStats).map(([n, p]) => [n, p.rps.median, p.p50ms.median, p.p99ms.median, p.p999ms.median, p.maxms.median, p.errors, p.serverCpuUsPerRequest.median]),
  ),
);
console.log(`\nper round, swaps p99 / steady p99: ${ratio.samples.join(', ')}`);
console.log(`swaps observed under load: ${swapsInWindow} of ${REFRESHES} (server counted ${swapsCounted}); ${rounds.map((r) => `refresh ${r.swaps.refreshMs} ms, swap seen ${r.swaps.swapSeenAfterMs} ms later at ${r.swaps.atS} s`).join('; ')}`);
console.log(table(['goal', 'target', 'measured'], Object.entries(result.goal).filter(([, v]) => typeof v === 'object').map(([k, v]) => [k, v.goal, v.value])));
console.log(`noise floor: steady p99 max / min over the rounds = ${result.noiseFloor.steadyP99MaxOverMin}; load average ${round(loadBefore)} before, ${round(loadAfter)} after (${os.cpus().length} cores)`);
console.log(`visits: ${visits} sent, ${stats.clicks.total} counted, ${stats.intercepted} intercepted, ${wrongAnswers} wrong (failed open or split)`);
console.log(`${ok ? 'goal met' : 'GOAL NOT MET'}\nresults: ${file}`);

agent.destroy();
await stopProcess(server);
source.close();
rmSync(dataDir, { recursive: true, force: true });
rmSync(scratch, { recursive: true, force: true });
if (!ok) process.exitCode = 1;
