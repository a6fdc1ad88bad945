// bench:cluster: cluster mode on a private PostgreSQL (durable: fsync and
// synchronous commits on) and Redis, three figures each with a baseline
// measured in the same run:
//
// 1. Replication lag: a route created through node A, then node B polled
//    (every 2 ms, keep-alive) until it redirects: time from A's 201 to B's
//    302. Baseline: the same poll on A itself right after its 201 (the
//    request's own round trip, the floor of what can be measured here).
// 2. Click flush throughput at 100,000 routes: one batch of 100,000
//    route-days added by the PostgreSQL back end (one INSERT ... ON CONFLICT
//    DO UPDATE, with the exactly-once claim) and, alternating, by the LMDB
//    back end of a single node.
// 3. API write throughput: POST /v1/routes through wrk on a cluster node
//    (PostgreSQL) and on a single node (LMDB), interleaved pairs.
//
// Needs PostgreSQL (/usr/lib/postgresql/<v>/bin), redis-server and wrk.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { armsTable, canPin, freshDataDir, haveWrk, round, runPairs, startPinned, startSplitguard, stopProcess, summary, table, writeResult } from './lib.js';
import { luaScript } from './lua.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '../bin/splitguard.js');
const LAG_ROUTES = Number(process.env.BENCH_LAG_ROUTES || 200);
const FLUSH_ROUTES = 100_000;
const FLUSH_ROUNDS = Number(process.env.BENCH_FLUSH_ROUNDS || 5);
const PAIRS = Number(process.env.BENCH_PAIRS || 3);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 16);
if (!haveWrk()) throw new Error('bench:cluster needs wrk (apt-get install wrk)');

function postgresBin() {
  const root = '/usr/lib/postgresql';
  const v = existsSync(root) ? readdirSync(root).filter((d) => existsSync(path.join(root, d, 'bin/postgres'))).sort((a, b) => b - a)[0] : undefined;
  if (!v) throw new Error('bench:cluster needs PostgreSQL (apt-get install postgresql)');
  return path.join(root, v, 'bin');
}

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** A private, durable PostgreSQL (as the postgres user when run as root: PostgreSQL refuses root). */
async function startPostgres() {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-pg-'));
  const asRoot = process.getuid() === 0;
  if (asRoot) {
    const [, , uid, gid] = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).trim().split(':');
    chownSync(dir, Number(uid), Number(gid));
  }
  const run = (tool, args) => execFileSync(asRoot ? 'runuser' : path.join(bin, tool), asRoot ? ['-u', 'postgres', '--', path.join(bin, tool), ...args] : args, { cwd: dir, stdio: 'pipe' });
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c max_connections=200`, '-l', path.join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    close() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((r) => net.connect(port, '127.0.0.1').on('connect', function () { this.destroy(); r(true); }).on('error', () => r(false)));
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, close: () => child.kill('SIGKILL') };
}

function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function requester(port, ca) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca });
  const send = (method, p, key, body) =>
    new Promise((resolve, reject) => {
      const headers = key ? { Authorization: `Bearer ${key}` } : {};
      if (body) headers['Content-Type'] = 'application/json';
      const req = https.request({ host: '127.0.0.1', port, method, path: p, agent, headers }, (res) => {
        let t = '';
        res.on('data', (d) => (t += d));
        res.on('end', () => resolve({ status: res.statusCode, body: t }));
      });
      req.on('error', reject);
      req.end(body ? JSON.stringify(body) : undefined);
    });
  return { send, close: () => agent.destroy() };
}

const pg = await startPostgres();
const redis = await startRedis();
const clusterEnv = (name) => ({ SPLITGUARD_DATABASE_URL: pg.url, SPLITGUARD_REDIS_URL: redis.url, SPLITGUARD_NODE_NAME: name, SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' });
const single = await startSplitguard('sg-bench-lmdb-', { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' });
const a = await startSplitguard('sg-bench-node-a-', clusterEnv('a'));
const bDir = await freshDataDir('sg-bench-node-b-');
const b = await startPinned(1, [BIN, 'serve'], { SPLITGUARD_DATA_DIR: bDir, PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', ...clusterEnv('b') });
const route = { name: 'bench route', page_a: 'https://example.com/a', page_b: 'https://example.com/b' };

// 1. Replication lag.
const onA = requester(a.proc.ports[0], a.ca);
const onB = requester(b.ports[0], readFileSync(path.join(bDir, 'tls/cert.pem')));
const lag = [];
const floor = [];
async function visibleAfter(client, code, since) {
  for (;;) {
    if ((await client.send('GET', `/r/${code}`)).status === 302) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 2));
  }
}
for (let i = 0; i < LAG_ROUTES; i++) {
  const created = await onA.send('POST', '/v1/routes', a.key, route);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.body}`);
  const t0 = performance.now();
  const { code } = JSON.parse(created.body);
  lag.push(await visibleAfter(onB, code, t0));
  floor.push(await visibleAfter(onA, code, performance.now()));
}
onA.close();
onB.close();
await stopProcess({ child: b.child });
rmSync(bDir, { recursive: true, force: true });
const lagResult = {
  replication: { p50ms: round(percentile(lag, 50)), p99ms: round(percentile(lag, 99)), max: round(Math.max(...lag)), samples: lag.length },
  baselineSameNode: { p50ms: round(percentile(floor, 50)), p99ms: round(percentile(floor, 99)), samples: floor.length },
};

// 2. Click flush throughput: the back ends themselves, from dist/.
const { openStores } = await import('../dist/store/db.js');
const { LmdbBackend } = await import('../dist/store/lmdb-backend.js');
const { PgBackend } = await import('../dist/store/pg/backend.js');
const { createPool } = await import('../dist/store/pg/client.js');
const { Replica } = await import('../dist/store/pg/replica.js');
const { zeroDay } = await import('../dist/store/stats-store.js');
const flushDir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-flush-'));
const stores = openStores(flushDir);
const pool = createPool(pg.url, 'bench', 2);
const backends = { postgres: new PgBackend(pool, new Replica(stores, pool), 'bench', () => true), lmdb: new LmdbBackend(stores) };
const day = Math.floor(Date.now() / 86_400_000);
const batch = Array.from({ length: FLUSH_ROUTES }, (_, i) => ({ routeId: 1_000_000 + i, day, c: { ...zeroDay(), clicks: 3, a: 2, b: 1 } }));
const flush = { postgres: [], lmdb: [] };
let seq = 1;
for (let r = 0; r < FLUSH_ROUNDS + 1; r++) {
  for (const [name, backend] of Object.entries(backends)) {
    const t0 = performance.now();
    await backend.addClicks(batch, name === 'postgres' ? { writer: 'bench/1', seq: seq++ } : undefined);
    const s = (performance.now() - t0) / 1000;
    if (r > 0) flush[name].push(FLUSH_ROUTES / s); // the first round warms up (and inserts rather than updates)
  }
}
await pool.end();
await stores.root.close();
rmSync(flushDir, { recursive: true, force: true });
const flushResult = { routeDaysPerBatch: FLUSH_ROUTES, postgres: summary(flush.postgres), lmdbBaseline: summary(flush.lmdb) };

// 3. API write throughput (B stopped: A alone on its CPU, wrk on the other).
const account = (env) =>
  JSON.parse(execFileSync(process.execPath, [BIN, 'account', 'create', '--name', 'bench', '--quota', '999999999'], { env: { ...process.env, ...env }, encoding: 'utf8' })).api_key;
const keyA = account(a.env);
const keySingle = account(single.env);
const arms = {
  'create on a cluster node (PostgreSQL)': { proc: a.proc, url: `https://127.0.0.1:${a.proc.ports[0]}/v1/routes`, script: luaScript('POST', route, { Authorization: `Bearer ${keyA}` }) },
  'create on a single node (LMDB)': { proc: single.proc, url: `https://127.0.0.1:${single.proc.ports[0]}/v1/routes`, script: luaScript('POST', route, { Authorization: `Bearer ${keySingle}` }) },
};
const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });

await a.close();
await single.close();
redis.close();
pg.close();

const result = {
  setup: { lagRoutes: LAG_ROUTES, flushRounds: FLUSH_ROUNDS, pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1, postgres: 'fsync on, synchronous_commit on' },
  lag: lagResult,
  flush: flushResult,
  api: { arms: stats, runs, postgresOverLmdb: ratio('create on a cluster node (PostgreSQL)', 'create on a single node (LMDB)', 'rps') },
};
const file = writeResult('cluster', result);
console.log(table(['replication', 'p50 ms', 'p99 ms'], [
  ['A 201 → B 302', lagResult.replication.p50ms, lagResult.replication.p99ms],
  ['baseline: A 201 → A 302', lagResult.baselineSameNode.p50ms, lagResult.baselineSameNode.p99ms],
]));
console.log(table(['click flush, 100,000 route-days', 'route-days/s (median)'], [
  ['PostgreSQL', Math.round(flushResult.postgres.median)],
  ['baseline: LMDB', Math.round(flushResult.lmdbBaseline.median)],
]));
console.log(armsTable(stats));
console.log(`results: ${file}`);
