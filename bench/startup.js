// bench:startup: from process start to a healthy /healthz with an existing
// database, and the resident memory of 1 and 2 server threads. Runs
// alternate (1 thread, 2 threads, 1, 2, ...). Figures (issue 8): healthy in
// <= 1 s; the second thread adds <= 15 MB (the database mapping is shared).
//
// Memory is read twice: 1.5 s after healthy (`atStart`), and once it has
// settled, which is the figure. V8 keeps each thread's start-up garbage
// committed until its memory reducer runs, 8 s after start (a fixed delay in
// Node 20's V8), and then gives back about 2 MB per thread; a long-running
// server holds the settled amount. Settled: at least SETTLE_MS after
// healthy, and the last four readings (one a second) within 0.5 MB.
import https from 'node:https';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDataDir, round, summary, table, writeResult } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const RUNS = Number(process.env.BENCH_PAIRS || 5);
const dataDir = await freshDataDir('sg-bench-startup-');
const PORT = 18443 + Math.floor(Math.random() * 1000);
const SETTLE_MS = 10_000;

function healthy(ca) {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port: PORT, path: '/healthz', ca }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
  });
}

const rssKb = (pid) => Number(/VmRSS:\s+([0-9]+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

async function start(threads) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.join(here, '../bin/splitguard.js'), 'serve'], {
    env: { ...process.env, SPLITGUARD_DATA_DIR: dataDir, PORT: String(PORT), HOST: '127.0.0.1', SPLITGUARD_THREADS: String(threads) },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  let ca;
  for (;;) {
    try {
      ca ??= readFileSync(path.join(dataDir, 'tls/cert.pem'));
      if (await healthy(ca)) break;
    } catch {
      // not yet
    }
    if (performance.now() - t0 > 30_000) throw new Error('not healthy within 30 s');
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - t0;
  // Local, not from lib.js: bench:check --against runs this script on older builds, whose lib.js it must not outgrow.
  const sleep = (t) => new Promise((r) => setTimeout(r, t));
  await sleep(1500);
  const atStart = rssKb(child.pid) / 1024;
  const readings = [];
  for (;;) {
    await sleep(1000);
    readings.push(rssKb(child.pid) / 1024);
    const last = readings.slice(-4);
    if (performance.now() - t0 - ms >= SETTLE_MS && last.length === 4 && Math.max(...last) - Math.min(...last) <= 0.5) break;
    if (readings.length > 40) throw new Error(`resident memory did not settle within 40 s: ${readings.map(round).join(', ')} MB`);
  }
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { ms: round(ms), rssMB: round(readings.at(-1)), atStartMB: round(atStart) };
}

await start(1); // first start: bootstrap, certificate
const samples = { 1: [], 2: [] };
for (let i = 0; i < RUNS; i++) for (const t of [1, 2]) samples[t].push(await start(t));
const deltas = samples[2].map((s, i) => s.rssMB - samples[1][i].rssMB);
const deltasAtStart = samples[2].map((s, i) => s.atStartMB - samples[1][i].atStartMB);
const result = {
  setup: { runs: RUNS },
  startupMs: { threads1: summary(samples[1].map((s) => s.ms)), threads2: summary(samples[2].map((s) => s.ms)) },
  rssMB: { threads1: summary(samples[1].map((s) => s.rssMB)), threads2: summary(samples[2].map((s) => s.rssMB)) },
  rssAtStartMB: { threads1: summary(samples[1].map((s) => s.atStartMB)), threads2: summary(samples[2].map((s) => s.atStartMB)) },
  secondThreadMB: summary(deltas),
  secondThreadAtStartMB: summary(deltasAtStart),
  goal: {
    startupMs: { goal: '<= 1000', value: summary(samples[1].map((s) => s.ms)).median },
    secondThreadMB: { goal: '<= 15', value: summary(deltas).median },
  },
};
const file = writeResult('startup', result);
console.log(table(['threads', 'start → healthy ms', 'RSS MB settled', 'RSS MB at 1.5 s'], [1, 2].map((t) => [t, result.startupMs[`threads${t}`].median, result.rssMB[`threads${t}`].median, result.rssAtStartMB[`threads${t}`].median])));
console.log(`\nsecond thread adds ${result.secondThreadMB.median} MB settled (goal <= 15), ${result.secondThreadAtStartMB.median} MB at 1.5 s\nresults: ${file}`);
rmSync(dataDir, { recursive: true, force: true });
