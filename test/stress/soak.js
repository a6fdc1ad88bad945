// Soak: mixed traffic at a fixed rate for a long time (default 10 minutes at
// half of the capacity measured first), watching for errors, memory growth
// and latency drift.
//
//   node test/stress/soak.js [--seconds 600] [--rate N | --capacity-seconds 10]
//     [--fraction 0.5] [--threads 2] [--window 60] [--warmup S]
//     [--refresh-at 0.5] [--data-dir DIR] [--json FILE]
//
// Traffic (shares of the total rate), every stream split evenly over the
// server threads' ports, each an autocannon instance with `overallRate`:
//   redirects 70 %  GET /r/<code> over 20 routes, half returning visitors
//                   (sg_vid cookie), half new ones (Set-Cookie issued)
//   ip-check  12 %  GET /v1/ip/check?ip=... (data centers, carriers, random
//                   IPv4 and IPv6)
//   ip-batch   3 %  POST /v1/ip/check with 10 addresses
//   api-read  10 %  GET /v1/routes/<id> (with stats), GET /v1/routes,
//                   GET /v1/ip/database, GET /metrics
//   api-write  5 %  POST /v1/routes, PUT it, DELETE it, over and over
// and one database refresh (POST /v1/ip/update, source `package:`, so a full
// build and a swap on every thread) at --refresh-at of the run.
//
// Without --rate, a burst of the same mix without a rate limit (after a
// short warm-up) measures the capacity first; the soak runs at --fraction of
// it. The load generator runs on the same machine: the capacity is that of
// server and generator together, which is what a same-machine figure can be.
//
// Recorded: every response's status (anything but the stream's expected
// statuses, and every connection error or timeout, is an error), latency
// per window (p50/p99 per stream and overall; autocannon's response times,
// from the request's write to its answer), the server's RSS every 5 s from
// /proc/<pid>/status, error lines in the server's log, and at the end the
// redirects answered 302 against the clicks in the routes' stats.
// Verdict: no errors, RSS growth after the warm-up <= 10 %, p99 steady
// (the worst window's p99 at most 3x the median window's); exit 1 otherwise.
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { Client, createAccount, dataDirFor, loadAverage, memory, options, percentile, requireBuild, round, sleep, startServer } from './lib.js';

const USAGE = 'node test/stress/soak.js [--seconds 600] [--rate N | --capacity-seconds 10] [--fraction 0.5] [--threads 2] [--window 60] [--warmup S] [--refresh-at 0.5] [--data-dir DIR] [--json FILE]';
const o = options(
  { seconds: '', rate: '', 'capacity-seconds': '', fraction: '', threads: '', window: '', warmup: '', 'refresh-at': '', 'data-dir': '', json: '' },
  USAGE,
);
const SECONDS = Number(o.seconds ?? 600);
const THREADS = Number(o.threads ?? 2);
const WINDOW = Number(o.window ?? 60);
const WARMUP = Number(o.warmup ?? Math.min(60, SECONDS * 0.2));
const FRACTION = Number(o.fraction ?? 0.5);
const CAPACITY_SECONDS = Number(o['capacity-seconds'] ?? 10);
const REFRESH_AT = o['refresh-at'] === undefined ? 0.5 : Number(o['refresh-at']);
const SAMPLE_MS = 5000;
const RSS_GROWTH_LIMIT = 0.1;
const P99_STEADY_FACTOR = 3;
requireBuild();

// ---- fixtures ---------------------------------------------------------------
let seed = 0x5eed;
const random = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
};
const pick = (xs) => xs[Math.floor(random() * xs.length)];
const ADDRESSES = [
  '8.8.8.8', '1.1.1.1', '9.9.9.9', '52.94.76.1', '13.107.42.14', '157.240.1.35', '2001:4860:4860::8888', '2606:4700:4700::1111',
  ...Array.from({ length: 150 }, () => [0, 0, 0, 0].map(() => Math.floor(random() * 256)).join('.')),
  ...Array.from({ length: 40 }, () => `2a0${Math.floor(random() * 10)}:${Math.floor(random() * 65536).toString(16)}::${Math.floor(random() * 65536).toString(16)}`),
];
const VISITORS = Array.from({ length: 1000 }, (_, i) => Buffer.from(`soak-visitor-${i}-${'x'.repeat(8)}`).toString('base64url').slice(0, 22));

const { dir: dataDir, owned } = await dataDirFor(o['data-dir'], 'sg-soak-');
const server = await startServer({
  dataDir,
  threads: THREADS,
  env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000', SPLITGUARD_IPDB_SOURCES: 'package:' },
});
const account = await createAccount(dataDir, 'soak', 10_000_000);
const client = new Client({ ...server, key: account.api_key });
const routes = [];
for (let i = 0; i < 20; i++) {
  const r = await client.request({
    method: 'POST',
    path: '/v1/routes',
    json: { name: `soak ${i}`, page_a: `https://a.example.com/soak/${i}`, page_b: `https://b.example.com/soak/${i}`, intercept_level: pick(['low', 'medium', 'high']) },
  });
  if (r.status !== 201) throw new Error(`creating a route answered ${r.status}: ${r.body}`);
  routes.push(r.json);
}

// ---- streams -----------------------------------------------------------------
const auth = { Authorization: `Bearer ${account.api_key}` };
const json = { ...auth, 'Content-Type': 'application/json' };
const STREAMS = [
  {
    name: 'redirects',
    share: 0.7,
    expect: [302],
    requests: [{
      method: 'GET',
      path: '/',
      setupRequest: (req) => {
        const headers = random() < 0.5 ? { Cookie: `sg_vid=${pick(VISITORS)}` } : {};
        return { ...req, path: `/r/${pick(routes).code}`, headers };
      },
    }],
  },
  {
    name: 'ip-check',
    share: 0.12,
    expect: [200],
    requests: [{ method: 'GET', path: '/', headers: auth, setupRequest: (req) => ({ ...req, path: `/v1/ip/check?ip=${encodeURIComponent(pick(ADDRESSES))}&level=${pick(['low', 'medium', 'high'])}` }) }],
  },
  {
    name: 'ip-batch',
    share: 0.03,
    expect: [200],
    requests: [{
      method: 'POST',
      path: '/v1/ip/check',
      headers: json,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ ips: Array.from({ length: 10 }, () => pick(ADDRESSES)) }) }),
    }],
  },
  {
    name: 'api-read',
    share: 0.1,
    expect: [200],
    requests: [{
      method: 'GET',
      path: '/',
      headers: auth,
      setupRequest: (req) => {
        const roll = random();
        const path = roll < 0.6 ? `/v1/routes/${pick(routes).id}` : roll < 0.85 ? '/v1/routes?page=1&limit=20' : roll < 0.95 ? '/v1/ip/database' : '/metrics';
        return { ...req, path };
      },
    }],
  },
  {
    name: 'api-write',
    share: 0.05,
    expect: [200, 201, 204],
    requests: [
      {
        method: 'POST',
        path: '/v1/routes',
        headers: json,
        body: JSON.stringify({ name: 'soak write', page_a: 'https://a.example.com/w', page_b: 'https://b.example.com/w' }),
        onResponse: (status, body, context) => {
          context.id = status === 201 ? JSON.parse(body).id : null;
        },
      },
      {
        method: 'PUT',
        path: '/',
        headers: json,
        // Nothing to change when the create failed (already counted): start over.
        setupRequest: (req, context) => context.id && { ...req, path: `/v1/routes/${context.id}`, body: JSON.stringify({ split_ratio: round(random(), 3), name: 'soak write updated' }) },
      },
      { method: 'DELETE', path: '/', headers: auth, setupRequest: (req, context) => context.id && { ...req, path: `/v1/routes/${context.id}` } },
    ],
  },
];

/**
 * Runs every stream on every port for `seconds`; `rate` null means as fast as
 * the connections go. Calls onResponse(stream, status, ms, at) per answer.
 */
function runMix(seconds, rate, onResponse, onError) {
  const instances = [];
  for (const stream of STREAMS) {
    for (const port of server.ports) {
      const perPort = rate === null ? null : Math.max(1, Math.round((rate * stream.share) / server.ports.length));
      const connections = rate === null ? Math.max(1, Math.round(24 * stream.share)) : Math.max(1, Math.min(16, Math.ceil(perPort / 20)));
      const inst = autocannon({
        url: `https://127.0.0.1:${port}`,
        connections,
        duration: seconds,
        ...(perPort === null ? {} : { overallRate: perPort }),
        requests: stream.requests,
        tlsOptions: { ca: server.ca },
        timeout: 10,
      });
      inst.on('response', (_client, status, _bytes, ms) => onResponse(stream, status, ms, performance.now()));
      inst.on('reqError', (err) => onError(stream, err));
      instances.push(new Promise((resolve, reject) => {
        inst.on('done', resolve);
        inst.on('error', reject);
      }));
    }
  }
  return Promise.all(instances);
}

// ---- capacity ----------------------------------------------------------------
const report = {
  setup: { seconds: SECONDS, threads: THREADS, window: WINDOW, warmup: WARMUP, fraction: FRACTION, mix: Object.fromEntries(STREAMS.map((s) => [s.name, s.share])) },
  machine: { cpus: os.availableParallelism(), cpu: os.cpus()[0]?.model, memoryGiB: round(os.totalmem() / 2 ** 30, 1), node: process.version, loadAverageStart: loadAverage() },
};
let rate = o.rate === undefined ? null : Number(o.rate);
if (rate === null) {
  console.log(`measuring capacity: ${CAPACITY_SECONDS} s of the mix without a rate limit (after 3 s of warm-up)`);
  await runMix(3, null, () => {}, () => {});
  let answered = 0;
  let bad = 0;
  await runMix(CAPACITY_SECONDS, null, (stream, status) => {
    answered++;
    if (!stream.expect.includes(status)) bad++;
  }, () => bad++);
  const capacity = answered / CAPACITY_SECONDS;
  rate = Math.round(capacity * FRACTION);
  report.capacity = { requestsPerSecond: round(capacity), seconds: CAPACITY_SECONDS, errors: bad, loadAverage: loadAverage() };
  console.log(`capacity ${round(capacity)} requests/s (${bad} errors); soaking at ${rate} requests/s`);
}
report.rate = rate;

// ---- the soak ------------------------------------------------------------------
// The capacity burst's redirects are in the stats too: start from them.
const clicksNow = async () => {
  let n = 0;
  for (const r of routes) n += (await client.request({ path: `/v1/routes/${r.id}` })).json.stats.clicks.total;
  return n;
};
await sleep(2500);
const clicksBefore = await clicksNow();
const windows = [];
const LAST_WINDOW = Math.max(0, Math.ceil(SECONDS / WINDOW) - 1);
const windowOf = (at) => {
  // Answers that arrive after the end (requests in flight) count in the last window.
  const w = Math.min(LAST_WINDOW, Math.floor((at - started) / 1000 / WINDOW));
  windows[w] ??= { latencies: Object.fromEntries(STREAMS.map((s) => [s.name, []])), all: [], errors: 0 };
  return windows[w];
};
const counts = Object.fromEntries(STREAMS.map((s) => [s.name, { answered: 0, errors: 0, statuses: {} }]));
const errorSamples = [];
const samples = [];
let redirects302 = 0;
const started = performance.now();
const sampler = setInterval(() => {
  const m = memory(server.pid);
  if (m) samples.push({ t: round((performance.now() - started) / 1000, 1), ...m });
}, SAMPLE_MS);
samples.push({ t: 0, ...memory(server.pid) });

let refresh = null;
const refreshTimer = REFRESH_AT > 0 && REFRESH_AT < 1
  ? setTimeout(async () => {
    const t0 = performance.now();
    const r = await client.request({ method: 'POST', path: '/v1/ip/update' });
    refresh = { at: round((t0 - started) / 1000, 1), status: r.status };
    for (;;) {
      await sleep(500);
      const s = await client.request({ path: '/v1/ip/database' });
      if (!s.json.refresh_running && s.json.last_refresh) {
        Object.assign(refresh, { seconds: round((performance.now() - t0) / 1000, 1), outcome: s.json.last_refresh.outcome, error: s.json.last_refresh.error });
        break;
      }
    }
  }, SECONDS * REFRESH_AT * 1000)
  : null;

console.log(`soaking ${SECONDS} s at ${rate} requests/s on ${THREADS} threads (load average ${loadAverage().join(' ')})`);
await runMix(
  SECONDS,
  rate,
  (stream, status, ms, at) => {
    const c = counts[stream.name];
    c.answered++;
    c.statuses[status] = (c.statuses[status] ?? 0) + 1;
    const w = windowOf(at);
    w.latencies[stream.name].push(ms);
    w.all.push(ms);
    if (stream.name === 'redirects' && status === 302) redirects302++;
    if (!stream.expect.includes(status)) {
      c.errors++;
      w.errors++;
      if (errorSamples.length < 20) errorSamples.push(`${stream.name}: status ${status}`);
    }
  },
  (stream, err) => {
    counts[stream.name].errors++;
    windowOf(performance.now()).errors++;
    if (errorSamples.length < 20) errorSamples.push(`${stream.name}: ${err.message}`);
  },
);
clearInterval(sampler);
clearTimeout(refreshTimer);
samples.push({ t: round((performance.now() - started) / 1000, 1), ...memory(server.pid) });
const elapsed = (performance.now() - started) / 1000;
while (refresh && refresh.outcome === undefined && REFRESH_AT < 1) await sleep(200);

// Every redirect answered 302 is in the stats (a clean run loses none).
await sleep(2500);
const clicks = (await clicksNow()) - clicksBefore;
const serverErrors = server.logs().filter((l) => l.level === 'error');

// ---- figures -------------------------------------------------------------------
const ms = (x) => round(x, 2);
report.windows = windows.map((w, i) => {
  const out = { window: i + 1, from: i * WINDOW, requests: w.all.length, rps: round(w.all.length / Math.min(WINDOW, SECONDS - i * WINDOW)), errors: w.errors };
  const all = w.all.sort((a, b) => a - b);
  Object.assign(out, { p50: ms(percentile(all, 50)), p99: ms(percentile(all, 99)), max: ms(all[all.length - 1]) });
  out.p99ByStream = Object.fromEntries(Object.entries(w.latencies).map(([n, xs]) => [n, ms(percentile(xs.sort((a, b) => a - b), 99))]));
  return out;
});
// The heap saws up and down with garbage collection (and a refresh builds in
// a thread of the server process for a while), so single samples say little:
// compare the median RSS of the first window after the warm-up with that of
// the last window, and their floors (minimum) too.
const median = (xs) => percentile([...xs].sort((a, b) => a - b), 50);
const inWindow = (from) => samples.filter((x) => x.t >= from && x.t < from + WINDOW);
const firstFrom = Math.ceil(WARMUP / WINDOW) * WINDOW;
const lastFrom = LAST_WINDOW * WINDOW;
const first = inWindow(firstFrom);
const last = inWindow(lastFrom);
const rss = {
  startKiB: samples[0].rssKiB,
  firstWindow: { from: firstFrom, medianKiB: median(first.map((x) => x.rssKiB)), minKiB: Math.min(...first.map((x) => x.rssKiB)), anonMedianKiB: median(first.map((x) => x.anonKiB)) },
  lastWindow: { from: lastFrom, medianKiB: median(last.map((x) => x.rssKiB)), minKiB: Math.min(...last.map((x) => x.rssKiB)), anonMedianKiB: median(last.map((x) => x.anonKiB)) },
  maxKiB: Math.max(...samples.map((x) => x.rssKiB)),
};
const growth = (a, b) => round(((b - a) / a) * 100, 2);
rss.growthPercent = growth(rss.firstWindow.medianKiB, rss.lastWindow.medianKiB);
rss.floorGrowthPercent = growth(rss.firstWindow.minKiB, rss.lastWindow.minKiB);
rss.anonGrowthPercent = growth(rss.firstWindow.anonMedianKiB, rss.lastWindow.anonMedianKiB);
for (const w of report.windows) {
  const xs = inWindow(w.from).map((x) => x.rssKiB);
  w.rssMedianMiB = xs.length ? round(median(xs) / 1024, 1) : null;
}
const p99s = report.windows.filter((w) => w.from >= firstFrom && w.requests > 0).map((w) => w.p99).sort((a, b) => a - b);
const totalErrors = Object.values(counts).reduce((a, c) => a + c.errors, 0) + serverErrors.length;
Object.assign(report, {
  elapsedSeconds: round(elapsed, 1),
  achievedRps: round(Object.values(counts).reduce((a, c) => a + c.answered, 0) / elapsed),
  counts,
  errors: { total: totalErrors, samples: errorSamples, serverLogErrors: serverErrors.slice(0, 10) },
  refresh,
  // Requests still in flight when the run ends are served and counted, but
  // their answers are not read: counted may exceed the 302s by those.
  clicks: { redirects302, counted: clicks, lost: Math.max(0, redirects302 - clicks), countedUnread: Math.max(0, clicks - redirects302) },
  rss,
  rssSamples: samples,
  p99: { medianWindowMs: percentile(p99s, 50), worstWindowMs: p99s[p99s.length - 1], steadyFactor: round(p99s[p99s.length - 1] / percentile(p99s, 50), 2) },
});
report.machine.loadAverageEnd = loadAverage();
report.verdict = {
  noErrors: totalErrors === 0,
  rssGrowthWithinLimit: rss.growthPercent <= RSS_GROWTH_LIMIT * 100,
  p99Steady: report.p99.steadyFactor <= P99_STEADY_FACTOR,
  noClicksLost: clicks >= redirects302,
};

console.log('\nwindow | from s | requests | req/s | errors | p50 ms | p99 ms | p99 redirect | p99 api-read | p99 api-write | max ms | RSS MiB');
for (const w of report.windows) {
  console.log([w.window, w.from, w.requests, w.rps, w.errors, w.p50, w.p99, w.p99ByStream.redirects, w.p99ByStream['api-read'], w.p99ByStream['api-write'], w.max, w.rssMedianMiB].join(' | '));
}
console.log(`\nrequests: ${JSON.stringify(Object.fromEntries(Object.entries(counts).map(([n, c]) => [n, c.answered])))}`);
console.log(`errors: ${totalErrors}${errorSamples.length ? ` (${errorSamples.slice(0, 5).join('; ')})` : ''}; server log errors: ${serverErrors.length}`);
console.log(`refresh: ${JSON.stringify(refresh)}`);
console.log(`clicks: ${redirects302} redirects answered 302, ${clicks} counted (${report.clicks.lost} lost)`);
const mib = (k) => round(k / 1024, 1);
console.log(
  `RSS: ${mib(rss.startKiB)} MiB at start; median ${mib(rss.firstWindow.medianKiB)} MiB in the first window after the warm-up (from ${firstFrom} s), ` +
    `${mib(rss.lastWindow.medianKiB)} MiB in the last (from ${lastFrom} s): ${rss.growthPercent} %; floor ${mib(rss.firstWindow.minKiB)} -> ${mib(rss.lastWindow.minKiB)} MiB (${rss.floorGrowthPercent} %); ` +
    `anonymous ${rss.anonGrowthPercent} %; max ${mib(rss.maxKiB)} MiB`,
);
console.log(`p99 per window after the warm-up: median ${report.p99.medianWindowMs} ms, worst ${report.p99.worstWindowMs} ms (x${report.p99.steadyFactor})`);
console.log(`load average: ${report.machine.loadAverageStart.join(' ')} at start, ${report.machine.loadAverageEnd.join(' ')} at the end`);
console.log(`verdict: ${JSON.stringify(report.verdict)}`);

client.close();
const code = await server.stop();
report.exitCode = code;
if (o.json) writeFileSync(o.json, `${JSON.stringify(report, null, 2)}\n`);
if (owned) rmSync(dataDir, { recursive: true, force: true });
process.exit(Object.values(report.verdict).every(Boolean) && code === 0 ? 0 : 1);
