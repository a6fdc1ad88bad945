// bench:conversions: POST /v1/conversions on one server thread (rate limit
// raised), every request a new conversion, against the bare uWebSockets.js
// TLS app answering a small JSON (same run, interleaved pairs). Figure
// (issue 18): >= 20,000 conversions/s (one per request, and in batches of
// 100 per request), and none lost: afterwards the route's
// stored count is at least the answers wrk received (every (click, goal)
// pair wrk sends is new; requests cut off at the end of a run may be stored
// without wrk having counted their answer).
//
// Click ids are minted here with the product's ClickIds and the server's
// own secret (read from its store once it has made it), one per simulated
// visitor, into a file wrk's Lua reads at start. Each arm has its own route
// and token file. A conversion is new while its (visitor, goal) pair is: the
// k-th conversion an arm sends uses token k mod n and goal k div n, and k
// carries on across wrk runs (a state file the script rewrites when a run
// ends), so no pair repeats and a route keeps under its 20 goals (GOAL_LIMIT).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClickIds } from '../dist/experiments/click-id.js';
import { openStores } from '../dist/store/db.js';
import { armsTable, canPin, haveWrk, round, runPairs, startPinned, startSplitguard, stopProcess, writeResult } from './lib.js';
import { luaScript } from './lua.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAIRS = Number(process.env.BENCH_PAIRS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 64);
/**
 * The single-conversion arm runs a second time with this many connections.
 * A request is answered once its group commit is on disk (a few ms), so a
 * closed loop of c connections cannot pass c / (time to answer) a second
 * whatever the server could do (Little's law): at 64 connections the server
 * thread waits idle for about half of the run. With more requests waiting,
 * each commit holds more of them; this arm measures what one thread can take.
 */
const SATURATING = Number(process.env.BENCH_CONNECTIONS_SATURATING || 256);
/** Click ids minted per arm: TOKENS × GOALS new conversions each (3.6 M: 30 s at 100,000/s and more). */
const TOKENS = 200_000;
if (!haveWrk()) throw new Error('bench:conversions needs wrk (apt-get install wrk)');

// The account's conversion quota (SPLITGUARD_CONVERSION_QUOTA) stays at its default of
// 10,000,000: the arms can store at most 2 × TOKENS × GOALS (7.2 M) and the probe, all
// in the bootstrap account, so no conversion is refused and the quota's count is measured
// as every deployment pays it.
const sg = await startSplitguard('sg-bench-conversions-', { SPLITGUARD_RATE_LIMIT_PER_MIN: '10000000', ...(process.env.SG_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SG_SERVER_NODE_OPTIONS } : {}) });
const port = sg.proc.ports[0];
// A set-up call; retried when the connection is cut before the answer (seen on a loaded machine).
const call = async (method, p, body, tries = 3) => {
  for (let i = 1; ; i++) {
    try {
      return await once(method, p, body);
    } catch (err) {
      if (i >= tries || !['ECONNRESET', 'EPIPE'].includes(err.code)) throw err;
    }
  }
};
const once = (method, p, body) => new Promise((resolve, reject) => {
  const req = https.request({ host: '127.0.0.1', port, method, path: p, ca: sg.ca, headers: { Authorization: `Bearer ${sg.key}`, 'Content-Type': 'application/json' } }, (res) => {
    let t = '';
    res.on('data', (d) => (t += d));
    res.on('end', () => resolve({ status: res.statusCode, json: t ? JSON.parse(t) : null }));
  });
  req.on('error', reject);
  req.end(body === undefined ? undefined : JSON.stringify(body));
});
const newRoute = async (name) => (await call('POST', '/v1/routes', {
  name, variants: [{ url: 'https://example.com/a', weight: 1 }, { url: 'https://example.com/b', weight: 1 }], append_click_id: true, intercept_level: 'off',
})).json;
const singleRoute = await newRoute('bench-single');
const batchRoute = await newRoute('bench-batch');

// The server made its secret at start; read it as the store holds it.
const stores = openStores(sg.dataDir);
const secret = new Uint8Array(stores.meta.get('secret:click_id'));
await stores.root.close();
const ids = new ClickIds(secret);
const now = Math.floor(Date.now() / 1000);
const mint = (routeId, count = TOKENS) => Array.from({ length: count }, (_, i) => {
  const r = randomBytes(8);
  return ids.issue(routeId, i % 2, r.readUInt32BE(0), r.readUInt32BE(4), now);
});
const [sample] = mint(singleRoute.id, 1);
const probe = await call('POST', '/v1/conversions', { click_id: sample, goal: 'probe' });
if (probe.status !== 202) throw new Error(`a minted click id answered ${probe.status}: ${JSON.stringify(probe.json)}`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-conv-'));
/** Goals per route the arms use: under GOAL_LIMIT (20) with the probe's. */
const GOALS = 18;
/**
 * A wrk script for one arm: `perRequest` conversions per request, the k-th
 * with token k mod TOKENS and goal g<k div TOKENS>. k goes on from the state
 * file, which done() rewrites (wrk's thread is kept in setup() to be read there).
 */
const armScript = (name, routeId, perRequest) => {
  const tokenFile = path.join(dir, `${name}.tokens`);
  const stateFile = path.join(dir, `${name}.state`);
  writeFileSync(tokenFile, `${mint(routeId).join('\n')}\n`);
  writeFileSync(stateFile, '0\n');
  const script = path.join(dir, `${name}.lua`);
  writeFileSync(script, `
local threads = {}
function setup(thread)
  -- k is counted per thread: one thread only (runWrk's default).
  if #threads > 0 then error("one wrk thread only") end
  table.insert(threads, thread)
end
function done(summary, latency, requests)
  local f = io.open("${stateFile}")
  local k = f:read("*n")
  f:close()
  for _, t in ipairs(threads) do k = k + t:get("sent") end
  f = io.open("${stateFile}", "w")
  f:write(k, "\\n")
  f:close()
end
local tokens = {}
local k0 = 0
local i = 0
sent = 0
function init(args)
  for line in io.lines("${tokenFile}") do tokens[#tokens + 1] = line end
  local f = io.open("${stateFile}")
  k0 = f:read("*n")
  f:close()
end
local function one(k)
  return '{"click_id":"' .. tokens[(k % ${TOKENS}) + 1] .. '","goal":"g' .. math.floor(k / ${TOKENS}) .. '"}'
end
function request()
  local k = k0 + i * ${perRequest}
  i = i + 1
  sent = sent + ${perRequest}
  local body
  if ${perRequest} == 1 then
    body = one(k)
  else
    local parts = {}
    for j = 0, ${perRequest - 1} do parts[j + 1] = one(k + j) end
    body = '{"conversions":[' .. table.concat(parts, ',') .. ']}'
  end
  return wrk.format("POST", nil, {["Authorization"] = "Bearer ${sg.key}", ["Content-Type"] = "application/json"}, body)
end
`);
  return { script, used: () => Number(readFileSync(stateFile, 'utf8')) };
};
const BATCH = 100;
const single = armScript('single', singleRoute.id, 1);
const batched = armScript('batch', batchRoute.id, BATCH);
const bare = await startPinned(0, [path.join(here, 'baselines/uws-json.js'), sg.certFile, sg.keyFile]);
const arms = {
  'POST /v1/conversions (new conversion each)': { proc: sg.proc, url: `https://127.0.0.1:${port}/v1/conversions`, script: single.script },
  [`POST /v1/conversions (new conversion each, ${SATURATING} connections)`]: { proc: sg.proc, url: `https://127.0.0.1:${port}/v1/conversions`, script: single.script, connections: SATURATING },
  'POST /v1/conversions (batches of 100)': { proc: sg.proc, url: `https://127.0.0.1:${port}/v1/conversions`, script: batched.script },
  'bare uWS TLS JSON': { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/v1/conversions`, script: luaScript('POST', { click_id: sample }) },
};
const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });
const [name, saturatedName, batchName] = Object.keys(arms);
for (const arm of [single, batched]) {
  if (arm.used() > TOKENS * GOALS) throw new Error(`the arms sent ${arm.used()} conversions, more than the ${TOKENS * GOALS} new ones TOKENS allows: raise TOKENS`);
}

// None lost: every 2xx wrk counted is a stored conversion (the probe aside).
const storedOn = async (route) => {
  const { experiment } = (await call('GET', `/v1/routes/${route.id}`)).json;
  return experiment.lifetime.goals.filter((g) => g !== 'probe')
    .reduce((sum, g) => sum + experiment.lifetime.variants.reduce((s, v) => s + v.conversions[g].count, 0), 0);
};
const stored = (await storedOn(singleRoute)) + (await storedOn(batchRoute));
const sent = arms[name].requests + arms[saturatedName].requests + BATCH * arms[batchName].requests;
const perSecond = { single: stats[name].rps.median, singleSaturating: stats[saturatedName].rps.median, batched: round(stats[batchName].rps.median * BATCH) };
const result = {
  setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, saturatingConnections: SATURATING, pinned: canPin, serverThreads: 1, tokens: TOKENS },
  arms: stats,
  runs,
  cpuRatioToBare: ratio(name, 'bare uWS TLS JSON', 'cpuUsPerRequest'),
  conversions: { acknowledged: sent, stored, lost: Math.max(0, sent - stored) },
  conversionsPerSecond: perSecond,
  // What one thread takes (the saturating arm); the 64-connection arm says what so few clients get.
  goal: { conversionsPerSecond: 20_000, single: perSecond.singleSaturating >= 20_000, singleAt64: perSecond.single >= 20_000, batched: perSecond.batched >= 20_000, noneLost: stored >= sent },
};
const file = writeResult('conversions', result);
console.log(armsTable(stats));
console.log(`conversions/s: ${perSecond.single} one per request (${CONNECTIONS} connections), ${perSecond.singleSaturating} (${SATURATING}), ${perSecond.batched} in batches of ${BATCH}; acknowledged ${sent}, stored ${stored} (${stored >= sent ? 'none lost' : 'LOST'})`);
console.log(`results: ${file}`);
await stopProcess(bare);
await sg.close();
