// bench:redirect: the full redirect (route lookup, classification at level
// medium, user-agent check, sticky split, click recording) against a bare
// uWebSockets.js TLS app answering a 302 from a Map, case by case, all cases
// interleaved in one run (server on CPU 0, wrk on CPU 1, one server thread
// each). Every case sends its requests from a wrk script that cycles through
// prepared header sets, to splitguard and to the bare app alike:
//
//   returning  a returning visitor (sg_vid cookie, 256 distinct ids), one browser UA, direct peer
//   new        a new visitor (no cookie: splitguard picks an id and sets the cookie), one browser UA, direct peer
//   ua-mix     returning visitors with 16 real browser UAs in rotation, direct peer
//   proxy      returning visitors behind a trusted proxy: the address is the
//              rightmost untrusted X-Forwarded-For hop (64 carrier addresses,
//              some with a client-claimed hop on the left), UA mix
//   proxy-new  the same, new visitors
//   crawler    16 crawler and link-preview UAs (intercepted: default page, no cookie), direct peer
//   new-cid    a new visitor on a route of 2 variants with append_click_id: the
//              visitor hash, the unique-visitor sketch and sg_cid in Location (issue 18)
//   new-cid-8  the same on a route of 8 variants (its figure: no slower than new-cid)
//
// "Direct peer" is a server without SPLITGUARD_TRUST_PROXY (the address is
// the socket's); the proxy cases go to a second server trusting 127.0.0.1.
//
// The bare app (baselines/uws-302.js) reads nothing but the code and
// answers with the same header names and value lengths as splitguard
// (Set-Cookie too in the new-visitor cases), constants encoded once: it pays
// the same TLS and HTTP work, none of the decision's. node:https and fastify
// answer the bare 302 in the returning case as further baselines.
//
// Figures: splitguard's CPU per request <= 1.3x the bare uWS app's in every
// case, <= 0.4x node:https's and fastify's, requests/s >= 2.5x theirs, p99
// <= 5 ms at 100 connections, and every click counted.
//   BENCH_PAIRS, BENCH_SECONDS, BENCH_CONNECTIONS; BENCH_CASES=returning,new (a subset);
//   BENCH_OTHERS=0 leaves out node:https and fastify.
import https from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canPin, startSplitguard, haveWrk, runPairs, startPinned, stopProcess, table, writeResult } from './lib.js';
import { luaRotation } from './lua.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const PAIRS = Number(process.env.BENCH_PAIRS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 100);
const OTHERS = process.env.BENCH_OTHERS !== '0';
if (!haveWrk()) {
  console.error('bench:redirect needs wrk (apt-get install wrk)');
  process.exit(1);
}

// ---- the traffic ------------------------------------------------------------

const lists = path.join(here, '../eval/lists');
const tsv = (file) => readFileSync(path.join(lists, file), 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));

// Real browser UAs (isbot's false-positive fixture): the most common current
// desktop and mobile ones (the intoli lists are ordered by frequency) and
// three in-app browsers.
const browsers = tsv('browser-user-agents.txt').filter((r) => r[1] === 'yes');
const firstOf = (category, n) => browsers.filter((r) => r[0] === category).slice(0, n).map((r) => r[2]);
const BROWSER_UAS = [
  ...firstOf('intoli-desktop', 6), ...firstOf('intoli-mobile', 6), ...firstOf('intoli-tablet', 1),
  ...firstOf('Facebook App', 1), ...firstOf('Instagram', 1), ...firstOf('Snapchat', 1),
];
const ONE_UA = BROWSER_UAS[0];

// Crawler and link-preview UAs of the platforms issue 15 names, the first
// instance of each in the evaluation list.
const crawlerRows = tsv('crawler-user-agents.txt');
const CRAWLER_UAS = [
  'Googlebot/', 'bingbot/', 'facebookexternalhit/1.1', 'meta-externalagent', 'Twitterbot', 'LinkedInBot', 'Applebot', 'Amazonbot',
  'Pinterestbot', 'Slackbot-LinkExpanding', 'Discordbot', 'TelegramBot', 'GPTBot', 'YandexBot', 'AhrefsBot', 'python-requests',
].map((token) => crawlerRows.find((r) => r[1]?.includes(token))?.[1]).filter((ua) => ua !== undefined);

// Client addresses behind the proxy: the carriers' sample addresses (broadband
// and mobile networks; the classifier lets them through at medium).
const carriers = readFileSync(path.join(lists, 'carrier-asns.csv'), 'utf8').split('\n').slice(1).filter(Boolean);
const CLIENTS = carriers.map((l) => /,(\d+\.\d+\.\d+\.\d+),/.exec(l)?.[1]).filter((ip) => ip !== undefined).slice(0, 64);

const visitorId = (i) => `bench${String(i).padStart(6, '0')}`.padEnd(22, 'Q');
const SETS = 256;
const sets = (f) => Array.from({ length: SETS }, (_, i) => f(i));
// Every 4th proxied request carries a hop the client claimed itself on the left.
const forwarded = (i) => (i % 4 === 3 ? `10.1.2.3, ${CLIENTS[i % CLIENTS.length]}` : CLIENTS[i % CLIENTS.length]);

const CASES = {
  returning: { server: 'direct', cookie: false, sets: sets((i) => ({ 'User-Agent': ONE_UA, Cookie: `sg_vid=${visitorId(i)}` })) },
  new: { server: 'direct', cookie: true, sets: sets(() => ({ 'User-Agent': ONE_UA })) },
  'ua-mix': { server: 'direct', cookie: false, sets: sets((i) => ({ 'User-Agent': BROWSER_UAS[i % BROWSER_UAS.length], Cookie: `sg_vid=${visitorId(i)}` })) },
  proxy: {
    server: 'proxy', cookie: false,
    sets: sets((i) => ({ 'User-Agent': BROWSER_UAS[i % BROWSER_UAS.length], Cookie: `sg_vid=${visitorId(i)}`, 'X-Forwarded-For': forwarded(i) })),
  },
  'proxy-new': {
    server: 'proxy', cookie: true,
    sets: sets((i) => ({ 'User-Agent': BROWSER_UAS[i % BROWSER_UAS.length], 'X-Forwarded-For': forwarded(i) })),
  },
  crawler: { server: 'direct', cookie: false, sets: sets((i) => ({ 'User-Agent': CRAWLER_UAS[i % CRAWLER_UAS.length] })) },
  'new-cid': { server: 'direct', route: 'cid2', cookie: true, sets: sets(() => ({ 'User-Agent': ONE_UA })) },
  'new-cid-8': { server: 'direct', route: 'cid8', cookie: true, sets: sets(() => ({ 'User-Agent': ONE_UA })) },
};
const chosen = process.env.BENCH_CASES ? process.env.BENCH_CASES.split(',') : Object.keys(CASES);
for (const c of chosen) if (!CASES[c]) throw new Error(`unknown case "${c}"; one of ${Object.keys(CASES).join(', ')}`);

// ---- the servers ------------------------------------------------------------

function api(sg, method, url, body) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: sg.proc.ports[0], method, path: url, ca: sg.ca, headers: { Authorization: `Bearer ${sg.key}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, json: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const servers = {
  direct: await startSplitguard('sg-bench-redirect-'),
  proxy: await startSplitguard('sg-bench-redirect-proxy-', { SPLITGUARD_TRUST_PROXY: '127.0.0.1' }),
};
const target = 'https://example.com/a';
for (const sg of Object.values(servers)) {
  const created = await api(sg, 'POST', '/v1/routes', {
    name: 'bench', page_a: target, page_b: 'https://example.com/b', split_ratio: 0.5, intercept_level: 'medium',
  });
  if (created.status !== 201) throw new Error(`route creation failed: ${JSON.stringify(created)}`);
  sg.route = created.json;
}
// Experiment routes: click ids appended, 2 and 8 variants (the same target for every variant, so the bare app's Location differs only by sg_cid).
servers.direct.routes = {};
for (const [name, count] of [['cid2', 2], ['cid8', 8]]) {
  const created = await api(servers.direct, 'POST', '/v1/routes', {
    name, variants: Array.from({ length: count }, (_, i) => ({ url: target, weight: i + 1 })), append_click_id: true, intercept_level: 'medium',
  });
  if (created.status !== 201) throw new Error(`route creation failed: ${JSON.stringify(created)}`);
  servers.direct.routes[name] = created.json;
}
const { certFile, keyFile } = servers.direct;
const code = servers.direct.route.code;
const bare = await startPinned(0, [path.join(here, 'baselines/uws-302.js'), certFile, keyFile, target, code, servers.proxy.route.code, ...Object.values(servers.direct.routes).map((r) => r.code)]);
const others = OTHERS
  ? {
      'node:https 302': await startPinned(0, [path.join(here, 'baselines/node-https-302.js'), certFile, keyFile, code, target]),
      'fastify 302': await startPinned(0, [path.join(here, 'baselines/fastify-302.js'), certFile, keyFile, code, target]),
    }
  : {};

const arms = {};
for (const name of chosen) {
  const c = CASES[name];
  const sg = servers[c.server];
  const route = c.route ? sg.routes[c.route] : sg.route;
  const script = luaRotation(c.sets);
  arms[`${name}: splitguard`] = { proc: sg.proc, url: `https://127.0.0.1:${sg.proc.ports[0]}/r/${route.code}`, script };
  arms[`${name}: bare uWS 302`] = { proc: bare, url: `https://127.0.0.1:${bare.ports[0]}/${c.cookie ? 'n' : 'r'}/${route.code}`, script };
  if (name === 'returning') {
    for (const [arm, proc] of Object.entries(others)) arms[`${name}: ${arm}`] = { proc, url: `https://127.0.0.1:${proc.ports[0]}/r/${code}`, script };
  }
}
// A 10 s timeout: on a machine shared with other work the slower baselines'
// latency can pass wrk's default 2 s, which would count as socket errors.
const { runs, stats, ratio } = runPairs(arms, { pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, timeout: '10s' });

// Every click counted. wrk counts the responses it received; requests still
// in flight when a run stops are served and counted by the server but not by
// wrk, at most one per connection per run. So: served <= counted <=
// served + connections x runs, per server.
await new Promise((r) => setTimeout(r, 2500));
const clicks = {};
let everyClickCounted = true;
for (const [s, sg] of Object.entries(servers)) {
  const mine = chosen.filter((n) => CASES[n].server === s);
  if (mine.length === 0) continue;
  const routes = [sg.route, ...Object.values(sg.routes ?? {})];
  const st = { clicks: { total: 0 }, intercepted: 0, rule_hits: { crawler: 0 } };
  for (const r of routes) {
    const d = (await api(sg, 'GET', `/v1/routes/${r.id}`)).json.stats;
    st.clicks.total += d.clicks.total;
    st.intercepted += d.intercepted;
    st.rule_hits.crawler += d.rule_hits.crawler;
  }
  const served = mine.reduce((sum, n) => sum + arms[`${n}: splitguard`].requests, 0);
  const inFlightBound = CONNECTIONS * (PAIRS + 1) * mine.length; // warm-up runs included
  const ok = st.clicks.total >= served && st.clicks.total <= served + inFlightBound;
  everyClickCounted &&= ok;
  clicks[s] = { served, counted: st.clicks.total, intercepted: st.intercepted, crawler: st.rule_hits.crawler, inFlightBound, ok };
}

// ---- the answer -------------------------------------------------------------

const cases = {};
for (const name of chosen) {
  const sgArm = `${name}: splitguard`;
  const bareArm = `${name}: bare uWS 302`;
  cases[name] = {
    splitguard: stats[sgArm],
    bare: stats[bareArm],
    cpuRatio: ratio(sgArm, bareArm, 'cpuUsPerRequest'),
  };
}
const worst = Object.entries(cases).reduce((w, [n, c]) => (w === null || c.cpuRatio.median > w.value ? { case: n, value: c.cpuRatio.median } : w), null);
const haveReturning = chosen.includes('returning');
const vs = (other) => (haveReturning && OTHERS
  ? { cpu: ratio('returning: splitguard', `returning: ${other}`, 'cpuUsPerRequest'), rps: ratio('returning: splitguard', `returning: ${other}`, 'rps') }
  : null);
const vsNode = vs('node:https 302');
const vsFastify = vs('fastify 302');
// 8 variants against 2, both with click ids and new visitors, pair by pair.
const eightVsTwo = chosen.includes('new-cid') && chosen.includes('new-cid-8') ? ratio('new-cid-8: splitguard', 'new-cid: splitguard', 'cpuUsPerRequest') : null;
const goal = {
  ...(eightVsTwo ? { cpuRatio8VariantsVs2: { goal: '<= 1 (no slower, within noise)', value: eightVsTwo.median } } : {}),
  ...Object.fromEntries(Object.entries(cases).map(([n, c]) => [`cpuRatioVsBareUws ${n}`, { goal: '<= 1.3', value: c.cpuRatio.median }])),
  ...(vsNode ? {
    cpuRatioVsNodeHttps: { goal: '<= 0.4', value: vsNode.cpu.median },
    cpuRatioVsFastify: { goal: '<= 0.4', value: vsFastify.cpu.median },
    rpsRatioVsNodeHttps: { goal: '>= 2.5', value: vsNode.rps.median },
    rpsRatioVsFastify: { goal: '>= 2.5', value: vsFastify.rps.median },
  } : {}),
  p99Ms: { goal: '<= 5', value: Math.max(...chosen.map((n) => cases[n].splitguard.p99ms.median)) },
  everyClickCounted,
};
// `arms` and `cpuRatio` keep the returning visitor's figures under the names
// earlier results used (bench:check, bench:clicks and the summary read them).
const arm = (n) => stats[`returning: ${n}`];
const result = {
  setup: {
    pairs: PAIRS, seconds: SECONDS, connections: CONNECTIONS, pinned: canPin, serverThreads: 1, interceptLevel: 'medium',
    headerSetsPerCase: SETS, browserUserAgents: BROWSER_UAS, crawlerUserAgents: CRAWLER_UAS, proxiedClients: CLIENTS.length,
    bareBaseline: 'reads only the code; same response header names and value lengths as splitguard (Set-Cookie in the new-visitor cases), constants pre-encoded',
  },
  cases,
  worstCpuRatio: worst,
  eightVariantsVsTwo: eightVsTwo,
  arms: haveReturning
    ? Object.fromEntries([['splitguard', arm('splitguard')], ['bare uWS 302', arm('bare uWS 302')], ...Object.keys(others).map((o) => [o, arm(o)])])
    : {},
  cpuRatio: haveReturning ? cases.returning.cpuRatio : null,
  vsNodeHttps: vsNode,
  vsFastify,
  clicks,
  goal,
  runs,
};
const file = writeResult('redirect', result);
const r2 = (x) => x.toFixed(2);
console.log(table(
  ['case', 'splitguard CPU µs/req', 'bare uWS CPU µs/req', 'ratio (median of pairs)', 'ratio min–max', 'splitguard req/s', 'bare req/s', 'splitguard p99 ms'],
  Object.entries(cases).map(([n, c]) => [
    n, r2(c.splitguard.cpuUsPerRequest.median), r2(c.bare.cpuUsPerRequest.median), r2(c.cpuRatio.median), `${r2(c.cpuRatio.min)}–${r2(c.cpuRatio.max)}`,
    Math.round(c.splitguard.rps.median), Math.round(c.bare.rps.median), c.splitguard.p99ms.median,
  ]),
));
if (Object.keys(others).length && haveReturning) {
  console.log();
  console.log(table(['returning visitor', 'req/s', 'p99 ms', 'CPU µs/req'], Object.entries(result.arms).map(([n, a]) => [n, Math.round(a.rps.median), a.p99ms.median, a.cpuUsPerRequest.median])));
}
console.log();
console.log(table(['goal', 'target', 'measured'], Object.entries(goal).map(([k, v]) => (typeof v === 'object' ? [k, v.goal, v.value] : [k, 'true', String(v)]))));
for (const [s, c] of Object.entries(clicks)) {
  console.log(`clicks (${s} server): ${c.served} received by wrk, ${c.counted} counted, ${c.intercepted} intercepted, ${c.crawler} of them by user agent (in flight at run ends: at most ${c.inFlightBound})${c.ok ? '' : ' (MISMATCH)'}`);
}
console.log(`results: ${file}`);
for (const p of [bare, ...Object.values(others)]) await stopProcess(p);
for (const sg of Object.values(servers)) await sg.close();
if (!everyClickCounted) process.exitCode = 1;
