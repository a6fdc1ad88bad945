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
// visitor; wrk's Lua script cycles through them and varies the goal (g<round>
// _<wrk thread>) so that no (visitor, route, goal) repeats.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdtempSync } from 'node:fs';
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
const TOKENS = 20_000;
if (!haveWrk()) throw new Error('bench:conversions needs wrk (apt-get install wrk)');

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
const route = (await call('POST', '/v1/routes', {
  name: 'bench', variants: [{ url: 'https://example.com/a', weight: 1 }, { url: 'https://example.com/b', weight: 1 }], append_click_id: true, intercept_level: 'off',
})).json;

// The server made its secret at start; read it as the store holds it.
const stores = openStores(sg.dataDir);
const secret = new Uint8Array(stores.meta.get('secret:click_id'));
await stores.root.close();
const ids = new ClickIds(secret);
const now = Math.floor(Date.now() / 1000);
const tokens = Array.from({ length: TOKENS }, (_, i) => {
  const r = randomBytes(8);
  return ids.issue(route.id, i % 2, r.readUInt32BE(0), r.readUInt32BE(4), now);
});
const probe = await call('POST', '/v1/conversions', { click_id: tokens[0], goal: 'probe' });
if (probe.status !== 202) throw new Error(`a minted click id answered ${probe.status}: ${JSON.stringify(probe.json)}`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-conv-'));
const script = path.join(dir, 'conversions.lua');
// Both wrk scripts: the click ids, a thread number and the start second in every thread.
// Each wrk run starts its Lua states afresh: the start second keeps its goals apart from earlier runs'.
const LUA_PRELUDE = `
local tokens = {${tokens.map((t) => `"${t}"`).join(',')}}
local n = ${TOKENS}
local threads = 0
local stamp = os.time()
function setup(thread)
  thread:set("tid", threads)
  thread:set("stamp", stamp)
  threads = threads + 1
end
local i = 0`;
writeFileSync(script, `${LUA_PRELUDE}
function request()
  i = i + 1
  local body = '{"click_id":"' .. tokens[(i % n) + 1] .. '","goal":"g' .. stamp .. '_' .. tid .. '_' .. math.floor(i / n) .. '"}'
  return wrk.format("POST", nil, {["Authorization"] = "Bearer ${sg.key}", ["Content-Type"] = "application/json"}, body)
end
`);

// The batch form: 100 conversions per request, the same tokens, goals b<stamp>_<thread>_<round>.
const BATCH = 100;
const batchScript = path.join(dir, 'batch.lua');
writeFileSync(batchScript, `${LUA_PRELUDE}
function request()
  local parts = {}
  for j = 1, ${BATCH} do
    local k = i * ${BATCH} + j
    parts[j] = '{"click_id":"' .. tokens[(k % n) + 1] .. '","goal":"b' .. stamp .. '_' .. tid .. '_' .. math.floor(k / n) .. '"}'
  end
  i = i + 1
  return wrk.format("POST", nil, {["Authorization"] = "Bearer ${sg.key}", ["Content-Type"] = "application/json"}, '{"conversions":[' .. table.concat(parts, ',') .. ']}')
end
`);

const bare = await startPinned(0, [path.join(here, 'baselines/uws-json.js'), sg.certFile, sg.keyFile]);
const arms = {
  'POST /v1/conversions (new conversion each)': { proc: sg.proc, url: `https://127.0.0.1:${port}/v1/conversions`, script },
  'POST /v1/conversions (batches of 100)': { proc: sg.proc, url: `https://127.0.0.1:${port}/v1/conversions`, script: batchScript },
  'bare uWS TLS JSON': { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/v1/conversions`, script: luaScript('POST', { click_id: tokens[0] }) },
};
const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS });
const name = Object.keys(arms)[0];
const batchName = Object.keys(arms)[1];

// None lost: every 2xx wrk counted is a stored conversion (plus the probe).
const detail = (await call('GET', `/v1/routes/${route.id}`)).json;
const stored = detail.experiment.lifetime.goals.filter((g) => g !== 'conversion' && g !== 'probe')
  .reduce((sum, g) => sum + detail.experiment.lifetime.variants.reduce((s, v) => s + v.conversions[g].count, 0), 0);
const sent = arms[name].requests + BATCH * arms[batchName].requests;
const perSecond = { single: stats[name].rps.median, batched: round(stats[batchName].rps.median * BATCH) };
const result = {
  setup: { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1, tokens: TOKENS },
  arms: stats,
  runs,
  cpuRatioToBare: ratio(name, 'bare uWS TLS JSON', 'cpuUsPerRequest'),
  conversions: { acknowledged: sent, stored, lost: Math.max(0, sent - stored) },
  conversionsPerSecond: perSecond,
  goal: { conversionsPerSecond: 20_000, single: perSecond.single >= 20_000, batched: perSecond.batched >= 20_000, noneLost: stored >= sent },
};
const file = writeResult('conversions', result);
console.log(armsTable(stats));
console.log(`conversions/s: ${perSecond.single} one per request, ${perSecond.batched} in batches of ${BATCH}; acknowledged ${sent}, stored ${stored} (${stored >= sent ? 'none lost' : 'LOST'})`);
console.log(`results: ${file}`);
await stopProcess(bare);
await sg.close();
