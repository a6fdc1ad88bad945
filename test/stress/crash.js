// Crash safety: SIGKILL the whole server process (every thread at once, no
// flush, no shutdown) at a random moment while clients create, update and
// delete routes and follow short links, then restart it on the same data
// directory and check what a client was promised:
//
//   - every route acknowledged with 201 or 200 is there with the settings of
//     its last acknowledged change; a change in flight at the kill (sent, not
//     answered) may or may not have happened, but nothing else;
//   - every route acknowledged deleted (204) stays deleted: 404 on the API
//     and on /r/<code>;
//   - no route appears that no create could explain, the list total equals
//     the routes listed, and the account's lifetime creation count equals the
//     routes that were ever created;
//   - the data directory opens cleanly: the LMDB store is opened and read end
//     to end by a separate process before the restart, and the restart logs
//     no error;
//   - the clicks lost (redirects answered 302 but missing from the stats) are
//     at most what the last flush interval can hold: loss <= rate x 1.5 s,
//     the rate being the acknowledged redirects per second just before the
//     kill (or over the whole cycle, whichever is higher).
//
//   node test/stress/crash.js [--cycles 20] [--threads 2] [--min-ms 1500]
//     [--max-ms 4500] [--writers 6] [--readers 8] [--seed 1]
//     [--data-dir DIR] [--json FILE]
//
// Prints a table per cycle and a summary; --json writes the whole report.
// Exits 1 when any check failed (each failure is listed under "violations").
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { checkStore, Client, createAccount, dataDirFor, loadAverage, options, requireBuild, round, sleep, startServer } from './lib.js';

const USAGE = 'node test/stress/crash.js [--cycles 20] [--threads 2] [--min-ms 1500] [--max-ms 4500] [--writers 6] [--readers 8] [--seed 1] [--data-dir DIR] [--json FILE]';
const o = options(
  { cycles: '', threads: '', 'min-ms': '', 'max-ms': '', writers: '', readers: '', seed: '', 'data-dir': '', json: '' },
  USAGE,
);
const CYCLES = Number(o.cycles ?? 20);
const THREADS = Number(o.threads ?? 2);
const MIN_MS = Number(o['min-ms'] ?? 1500);
const MAX_MS = Number(o['max-ms'] ?? 4500);
const WRITERS = Number(o.writers ?? 6);
const READERS = Number(o.readers ?? 8);
const CLICK_ROUTES = 8;
/** The loss bound: the click flush interval (1 s) plus half a second for the commit in progress. */
const BOUND_SECONDS = 1.5;
requireBuild();

// A seeded xorshift32, so that a failing run can be repeated (the kill
// moments and the operations; the server's timing still varies).
let seed = Number(o.seed ?? 1) >>> 0 || 1;
const random = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
};
const pick = (xs) => xs[Math.floor(random() * xs.length)];

const SETTINGS = ['name', 'page_a', 'page_b', 'split_ratio', 'default_group', 'intercept_level'];
let serial = 0;
function randomSettings(label) {
  const n = ++serial;
  return {
    name: `${label} ${n}`,
    page_a: `https://a.example.com/p/${n}`,
    page_b: `https://b.example.com/p/${n}?v=${Math.floor(random() * 1000)}`,
    split_ratio: round(random(), 3),
    default_group: pick(['a', 'b']),
    intercept_level: pick(['off', 'low', 'medium', 'high']),
  };
}
const settingsOf = (body) => Object.fromEntries(SETTINGS.map((k) => [k, body[k]]));
const same = (a, b) => SETTINGS.every((k) => a[k] === b[k]);
const show = (s) => JSON.stringify(s);

const { dir: dataDir, owned } = await dataDirFor(o['data-dir'], 'sg-crash-');
const violations = [];
const violation = (cycle, text) => {
  violations.push({ cycle, text });
  console.error(`  ! cycle ${cycle}: ${text}`);
};

// ---- the model: what clients were told ------------------------------------
/**
 * id -> { id, code, name, acked: settings | null (deleted), pending: null |
 * { kind: 'update', settings } | { kind: 'delete' }, busy, click }
 */
const routes = new Map();
/** Creates sent but not answered when the server died: name -> settings. */
let unackedCreates = new Map();
let createsCommitted = 0; // routes that exist or existed (acknowledged or adopted)

let server = await startServer({ dataDir, threads: THREADS, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' } });
const account = await createAccount(dataDir, 'crash test', 10_000_000);
let client = new Client({ ...server, key: account.api_key }, { maxSockets: WRITERS + READERS });

for (let i = 0; i < CLICK_ROUTES; i++) {
  const s = { ...randomSettings('click'), split_ratio: 0.5, intercept_level: 'medium' };
  const r = await client.request({ method: 'POST', path: '/v1/routes', json: s });
  if (r.status !== 201) throw new Error(`creating a click route answered ${r.status}: ${r.body}`);
  routes.set(r.json.id, { id: r.json.id, code: r.json.code, acked: settingsOf(r.json), pending: null, busy: false, click: true });
  createsCommitted++;
}
const clickRoutes = [...routes.values()];

async function clickTotals() {
  const out = new Map();
  for (const r of clickRoutes) {
    const res = await client.request({ method: 'GET', path: `/v1/routes/${r.id}` });
    if (res.status !== 200) throw new Error(`GET /v1/routes/${r.id} answered ${res.status}`);
    out.set(r.id, res.json.stats.clicks.total);
  }
  return out;
}

// ---- one cycle ---------------------------------------------------------------
async function load(cycle, killAfterMs) {
  let stopping = false;
  const stats = { creates: 0, updates: 0, deletes: 0, redirects: 0, mutableRedirects: 0 };
  const clickAcks = new Map(clickRoutes.map((r) => [r.id, 0]));
  const ackTimes = [];
  const expectDeath = (err, what) => {
    if (!stopping) violation(cycle, `${what} failed before the kill: ${err.message}`);
  };

  const writer = async (w) => {
    while (!stopping) {
      const live = [...routes.values()].filter((r) => r.acked && !r.click && !r.busy && !r.pending);
      const roll = random();
      if (live.length < 5 || roll < 0.35) {
        const s = randomSettings(`c${cycle} w${w}`);
        unackedCreates.set(s.name, s);
        let r;
        try {
          r = await client.request({ method: 'POST', path: '/v1/routes', json: s });
        } catch (err) {
          expectDeath(err, 'a create');
          return;
        }
        if (r.status !== 201) {
          violation(cycle, `create answered ${r.status}: ${r.body}`);
          unackedCreates.delete(s.name);
          continue;
        }
        unackedCreates.delete(s.name);
        if (!same(settingsOf(r.json), s)) violation(cycle, `create ${r.json.id} answered ${show(settingsOf(r.json))} for ${show(s)}`);
        routes.set(r.json.id, { id: r.json.id, code: r.json.code, acked: settingsOf(r.json), pending: null, busy: false, click: false, cycle });
        createsCommitted++;
        stats.creates++;
      } else if (roll < 0.8) {
        const route = pick(live);
        const fresh = randomSettings(`c${cycle} u`);
        const changes = Object.fromEntries(SETTINGS.filter(() => random() < 0.5).map((k) => [k, fresh[k]]));
        if (Object.keys(changes).length === 0) changes.split_ratio = fresh.split_ratio;
        const expected = { ...route.acked, ...changes };
        route.busy = true;
        route.pending = { kind: 'update', settings: expected };
        let r;
        try {
          r = await client.request({ method: 'PUT', path: `/v1/routes/${route.id}`, json: changes });
        } catch (err) {
          expectDeath(err, 'an update');
          return;
        }
        route.busy = false;
        route.pending = null;
        if (r.status !== 200) {
          violation(cycle, `update of ${route.id} answered ${r.status}: ${r.body}`);
          continue;
        }
        if (!same(settingsOf(r.json), expected)) violation(cycle, `update of ${route.id} answered ${show(settingsOf(r.json))}, expected ${show(expected)}`);
        route.acked = expected;
        route.touched = cycle;
        stats.updates++;
      } else {
        const route = pick(live);
        route.busy = true;
        route.pending = { kind: 'delete' };
        let r;
        try {
          r = await client.request({ method: 'DELETE', path: `/v1/routes/${route.id}` });
        } catch (err) {
          expectDeath(err, 'a delete');
          return;
        }
        route.busy = false;
        route.pending = null;
        if (r.status !== 204) {
          violation(cycle, `delete of ${route.id} answered ${r.status}: ${r.body}`);
          continue;
        }
        route.acked = null;
        route.touched = cycle;
        stats.deletes++;
      }
    }
  };

  const reader = async (n) => {
    const cookie = `sg_vid=${Buffer.from(`crash-visitor-${n}-${cycle}`).toString('base64url').slice(0, 22).padEnd(22, 'A')}`;
    while (!stopping) {
      // Mostly the click routes (counted); now and then a route that is
      // being changed (its answer depends on races, so it is not checked).
      const mutable = random() < 0.1 ? pick([...routes.values()].filter((r) => !r.click && r.acked)) : undefined;
      const route = mutable ?? pick(clickRoutes);
      let r;
      try {
        r = await client.request({ path: `/r/${route.code}`, key: null, headers: { Cookie: cookie } });
      } catch (err) {
        expectDeath(err, 'a redirect');
        return;
      }
      if (mutable) {
        stats.mutableRedirects++;
        continue;
      }
      if (r.status !== 302) {
        violation(cycle, `redirect of click route ${route.id} answered ${r.status}`);
        continue;
      }
      clickAcks.set(route.id, clickAcks.get(route.id) + 1);
      ackTimes.push(performance.now());
      stats.redirects++;
    }
  };

  const started = performance.now();
  const loops = [...Array.from({ length: WRITERS }, (_, w) => writer(w)), ...Array.from({ length: READERS }, (_, n) => reader(n))];
  await sleep(killAfterMs);
  stopping = true;
  const killedAt = performance.now();
  const signal = await server.kill9();
  await Promise.all(loops);
  const duration = (killedAt - started) / 1000;
  const window = 2000;
  const recent = ackTimes.filter((t) => t > killedAt - window).length;
  return {
    stats,
    clickAcks,
    signal,
    rate: { mean: stats.redirects / duration, lastTwoSeconds: recent / (window / 1000) },
    inFlight: {
      creates: unackedCreates.size,
      updates: [...routes.values()].filter((r) => r.pending?.kind === 'update').length,
      deletes: [...routes.values()].filter((r) => r.pending?.kind === 'delete').length,
    },
  };
}

/** Compares the restarted server with the model; adopts in-flight changes that turned out committed. */
async function verify(cycle) {
  const listed = new Map();
  let total = -1;
  for (let page = 1; ; page++) {
    const r = await client.request({ path: `/v1/routes?page=${page}&limit=100` });
    if (r.status !== 200) throw new Error(`GET /v1/routes answered ${r.status}`);
    total = r.json.pagination.total;
    for (const route of r.json.data) listed.set(route.id, route);
    if (page >= r.json.pagination.pages) break;
  }
  if (total !== listed.size) violation(cycle, `the list total is ${total} but ${listed.size} routes are listed`);

  const checked = { live: 0, deleted: 0, inFlightApplied: 0, inFlightNotApplied: 0, adoptedCreates: 0, redirectsChecked: 0 };
  for (const route of routes.values()) {
    const got = listed.get(route.id);
    const p = route.pending;
    if (p?.kind === 'update') {
      if (!got) violation(cycle, `route ${route.id} (update in flight) is gone`);
      else if (same(settingsOf(got), p.settings)) {
        route.acked = p.settings;
        checked.inFlightApplied++;
      } else if (same(settingsOf(got), route.acked)) checked.inFlightNotApplied++;
      else violation(cycle, `route ${route.id} (update in flight) has ${show(settingsOf(got))}: neither ${show(route.acked)} nor ${show(p.settings)}`);
      route.touched = cycle;
    } else if (p?.kind === 'delete') {
      if (!got) {
        route.acked = null;
        checked.inFlightApplied++;
      } else if (same(settingsOf(got), route.acked)) checked.inFlightNotApplied++;
      else violation(cycle, `route ${route.id} (delete in flight) has ${show(settingsOf(got))}, expected ${show(route.acked)} or gone`);
      route.touched = cycle;
    } else if (route.acked === null) {
      checked.deleted++;
      if (got) violation(cycle, `route ${route.id} was acknowledged deleted but is back: ${show(settingsOf(got))}`);
    } else {
      checked.live++;
      if (!got) violation(cycle, `route ${route.id} was acknowledged (${show(route.acked)}) but is missing`);
      else if (!same(settingsOf(got), route.acked)) violation(cycle, `route ${route.id} has ${show(settingsOf(got))}, acknowledged ${show(route.acked)}`);
    }
    route.pending = null;
    route.busy = false;
  }
  // Routes the model does not know: only a create in flight can explain one.
  for (const [id, got] of listed) {
    if (routes.has(id)) continue;
    const s = unackedCreates.get(got.name);
    if (s && same(settingsOf(got), s)) {
      unackedCreates.delete(got.name);
      routes.set(id, { id, code: got.code, acked: settingsOf(got), pending: null, busy: false, click: false, touched: cycle });
      createsCommitted++;
      checked.adoptedCreates++;
    } else {
      violation(cycle, `route ${id} exists but no create explains it: ${show(settingsOf(got))}`);
    }
  }
  unackedCreates = new Map();

  // Routes changed in this cycle, one by one, on the API and on /r/<code>.
  for (const route of routes.values()) {
    if (route.touched !== cycle && route.cycle !== cycle) continue;
    const api = await client.request({ path: `/v1/routes/${route.id}` });
    const visit = await client.request({ path: `/r/${route.code}`, key: null, headers: { Cookie: 'sg_vid=crashcheckAAAAAAAAAAAA' } });
    checked.redirectsChecked++;
    if (route.acked === null) {
      if (api.status !== 404) violation(cycle, `deleted route ${route.id}: GET answered ${api.status}`);
      if (visit.status !== 404) violation(cycle, `deleted route ${route.id}: /r/${route.code} answered ${visit.status}`);
    } else {
      if (api.status !== 200 || !same(settingsOf(api.json), route.acked)) violation(cycle, `route ${route.id}: GET answered ${api.status} ${api.body.slice(0, 200)}`);
      const pages = [route.acked.page_a, route.acked.page_b];
      if (visit.status !== 302 || !pages.includes(visit.headers.location)) {
        violation(cycle, `route ${route.id}: /r/${route.code} answered ${visit.status} ${visit.headers.location ?? ''}`);
      }
    }
  }

  const acc = await client.request({ path: '/v1/account' });
  if (acc.json.routes_created !== createsCommitted) {
    violation(cycle, `the account's routes_created is ${acc.json.routes_created}, but ${createsCommitted} routes were created`);
  }
  const health = await client.request({ path: '/healthz', key: null });
  if (health.status !== 200) violation(cycle, `/healthz answered ${health.status}`);
  return checked;
}

// ---- the run -----------------------------------------------------------------
const report = {
  setup: { cycles: CYCLES, threads: THREADS, killWindowMs: [MIN_MS, MAX_MS], writers: WRITERS, readers: READERS, clickRoutes: CLICK_ROUTES, boundSeconds: BOUND_SECONDS },
  machine: { cpus: os.availableParallelism(), loadAverageStart: loadAverage() },
  cycles: [],
  violations,
};
console.log(`crash test: ${CYCLES} cycles, ${THREADS} threads, kill after ${MIN_MS}-${MAX_MS} ms, data in ${dataDir}`);
console.log('cycle | kill ms | creates | updates | deletes | in flight c/u/d | applied/not | 302 acked | clicks lost | bound | restart ms');
try {
  for (let cycle = 1; cycle <= CYCLES; cycle++) {
    const before = await clickTotals();
    const killAfterMs = Math.round(MIN_MS + random() * (MAX_MS - MIN_MS));
    const run = await load(cycle, killAfterMs);
    client.close();
    if (run.signal !== 'SIGKILL') violation(cycle, `the server ended with ${run.signal}, not SIGKILL`);

    const store = await checkStore(dataDir);
    if (!store.ok) violation(cycle, `the store did not open cleanly after the kill: ${store.error}`);

    const t0 = performance.now();
    server = await startServer({ dataDir, threads: THREADS, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000' } });
    const restartMs = Math.round(performance.now() - t0);
    for (const e of server.logs()) if (e.level === 'error') violation(cycle, `the restart logged an error: ${JSON.stringify(e)}`);
    client = new Client({ ...server, key: account.api_key }, { maxSockets: WRITERS + READERS });

    const checked = await verify(cycle);
    const after = await clickTotals();
    let acked = 0;
    let stored = 0;
    for (const r of clickRoutes) {
      acked += run.clickAcks.get(r.id);
      stored += after.get(r.id) - before.get(r.id);
    }
    const lost = Math.max(0, acked - stored);
    const rate = Math.max(run.rate.mean, run.rate.lastTwoSeconds);
    const bound = Math.ceil(rate * BOUND_SECONDS);
    if (lost > bound) violation(cycle, `${lost} clicks lost, more than the bound ${bound} (${round(rate)} redirects/s x ${BOUND_SECONDS} s)`);
    const entry = {
      cycle,
      killAfterMs,
      acknowledged: run.stats,
      inFlightAtKill: run.inFlight,
      checked,
      clicks: { acknowledged: acked, stored, lost, countedUnacknowledged: Math.max(0, stored - acked), ratePerSecond: round(rate), lostSeconds: round(lost / rate, 3), bound },
      restartMs,
      store: store.counts,
    };
    report.cycles.push(entry);
    const f = run.inFlight;
    console.log(
      [cycle, killAfterMs, run.stats.creates, run.stats.updates, run.stats.deletes, `${f.creates}/${f.updates}/${f.deletes}`,
        `${checked.inFlightApplied + checked.adoptedCreates}/${checked.inFlightNotApplied}`, acked, lost, bound, restartMs].join(' | '),
    );
  }
  client.close();
  const code = await server.stop();
  if (code !== 0) violation(CYCLES, `the final graceful stop exited ${code}`);
  const store = await checkStore(dataDir);
  if (!store.ok) violation(CYCLES, `the store did not open cleanly after the final stop: ${store.error}`);
  report.finalStore = store.counts;
} catch (err) {
  violations.push({ cycle: report.cycles.length + 1, text: `the run stopped: ${err.stack ?? err}` });
  console.error(err);
  await server.kill9();
}

const sum = (f) => report.cycles.reduce((a, c) => a + f(c), 0);
report.totals = {
  cycles: report.cycles.length,
  creates: sum((c) => c.acknowledged.creates),
  updates: sum((c) => c.acknowledged.updates),
  deletes: sum((c) => c.acknowledged.deletes),
  routesChecked: sum((c) => c.checked.live + c.checked.deleted),
  inFlightResolved: sum((c) => c.checked.inFlightApplied + c.checked.inFlightNotApplied + c.checked.adoptedCreates),
  redirectsAcknowledged: sum((c) => c.clicks.acknowledged),
  clicksLost: sum((c) => c.clicks.lost),
  clicksLostMax: Math.max(0, ...report.cycles.map((c) => c.clicks.lost)),
  lossOverBoundMax: round(Math.max(0, ...report.cycles.map((c) => c.clicks.lost / c.clicks.bound)), 3),
  lostSecondsMax: Math.max(0, ...report.cycles.map((c) => c.clicks.lostSeconds)),
  lostSecondsMedian: [...report.cycles.map((c) => c.clicks.lostSeconds)].sort((a, b) => a - b)[report.cycles.length >> 1] ?? 0,
  restartMsMax: Math.max(0, ...report.cycles.map((c) => c.restartMs)),
  violations: violations.length,
};
report.machine.loadAverageEnd = loadAverage();
console.log(`\ntotals: ${JSON.stringify(report.totals)}`);
console.log(violations.length === 0 ? 'crash test: every check passed' : `crash test: ${violations.length} violations`);
if (o.json) writeFileSync(o.json, `${JSON.stringify(report, null, 2)}\n`);
if (owned) rmSync(dataDir, { recursive: true, force: true });
process.exit(violations.length === 0 ? 0 : 1);
