// bench:limits: the cost of cluster-wide limits on an API request. The same
// request (GET /v1/account: authentication, the account limit, a small
// read) against two splitguard servers in the same run, interleaved: one
// with the single node's limits (shared memory), one with
// SPLITGUARD_REDIS_URL (one atomic script in Redis per request). One server
// thread each, pinned to CPU 0; wrk and the private redis-server on CPU 1.
// The limit is raised so every request is admitted (and still counted).
//
// Also measured, from Redis itself (INFO commandstats): Redis commands per
// API request; and from /metrics: decisions the Redis arm made alone
// (timeouts), which must be 0 for its figure to be Redis's.
import { execFileSync, spawn } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { armsTable, canPin, haveWrk, round, runPairs, startSplitguard, writeResult } from './lib.js';

const PAIRS = Number(process.env.BENCH_PAIRS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
if (!haveWrk()) throw new Error('bench:limits needs wrk (apt-get install wrk)');
execFileSync('redis-server', ['--version'], { stdio: 'ignore' });

/** A private redis-server on a free loopback port, pinned next to wrk. */
async function startRedis() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-redis-'));
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = canPin ? spawn('taskset', ['-c', '1', 'redis-server', ...args], { stdio: 'ignore' }) : spawn('redis-server', args, { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const cli = (...a) => execFileSync('redis-cli', ['-p', String(port), ...a], { encoding: 'utf8' });
  return {
    url: `redis://127.0.0.1:${port}`,
    cli,
    close: async () => {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await done;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Commands clients sent Redis so far. Commands a script runs (redis.call)
 * are counted in commandstats too, under their own names; only what a node
 * sends is wanted here: EVALSHA, EVAL (once per script after a restart).
 */
const redisCalls = (redis) =>
  [...redis.cli('INFO', 'commandstats').matchAll(/^cmdstat_(evalsha|eval):calls=([0-9]+)/gm)].reduce((a, m) => a + Number(m[2]), 0);

function metric(sg, name) {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: sg.proc.ports[0], path: '/metrics', ca: sg.ca }, (res) => {
        let t = '';
        res.on('data', (d) => (t += d));
        res.on('end', () => resolve(Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(t)?.[1])));
      })
      .on('error', reject);
  });
}

const redis = await startRedis();
const limitEnv = { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' };
const local = await startSplitguard('sg-bench-limits-local-', limitEnv);
const TIMEOUT_MS = Number(process.env.BENCH_REDIS_TIMEOUT_MS || 50);
const clustered = await startSplitguard('sg-bench-limits-redis-', { ...limitEnv, SPLITGUARD_REDIS_URL: redis.url, SPLITGUARD_REDIS_TIMEOUT_MS: String(TIMEOUT_MS) });
const arm = (sg) => ({ proc: sg.proc, url: `https://127.0.0.1:${sg.proc.ports[0]}/v1/account`, headers: [`Authorization: Bearer ${sg.key}`] });
const arms = {
  'GET /v1/account, local limits': arm(local),
  'GET /v1/account, Redis limits': arm(clustered),
};
const callsBefore = redisCalls(redis);
const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });
const callsAfter = redisCalls(redis);
const apiRequests = arms['GET /v1/account, Redis limits'].requests;
const fallbacks = await metric(clustered, 'splitguard_limit_fallbacks_total');
const result = {
  setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1, redisTimeoutMs: TIMEOUT_MS },
  arms: stats,
  redisOverLocal: { rps: ratio('GET /v1/account, Redis limits', 'GET /v1/account, local limits', 'rps'), p50: ratio('GET /v1/account, Redis limits', 'GET /v1/account, local limits', 'p50') },
  // Heartbeats (one every 5 s) are included: a rounding error at these rates.
  redisCommandsPerApiRequest: round((callsAfter - callsBefore) / apiRequests, 3),
  redisArmLocalDecisions: fallbacks,
  runs,
};
const file = writeResult(TIMEOUT_MS === 50 ? 'limits' : `limits-timeout-${TIMEOUT_MS}`, result);
console.log(armsTable(stats));
console.log(`Redis/local req/s (median of pairs): ${result.redisOverLocal.rps.median}; Redis commands per API request: ${result.redisCommandsPerApiRequest}; local decisions in the Redis arm: ${fallbacks}`);
console.log(`results: ${file}`);
await local.close();
await clustered.close();
await redis.close();
if (fallbacks > 0) {
  console.error(`the Redis arm decided ${fallbacks} requests alone (Redis slower than ${TIMEOUT_MS} ms, then resting 1 s): its figure is partly the local limits'`);
  process.exitCode = 1;
}
