// eval:detection: how much of the real world the classifier catches, and how
// many real people it stops, on public reference lists kept in eval/lists/
// (sources and licences: eval/README.md; results: docs/detection.md).
//
//   npm run build && npm run eval:detection [-- --baseline <git ref>] [--quick]
//
// Method.
// - Databases: the one a first start installs (the installed
//   @ip-location-db/asn package with the shipped feed snapshots, bench/lib.js
//   cachedDatabase), and the same ASN data without feeds (plainDatabase) for
//   the baseline and the "- range feeds" ablation. Classification through the
//   in-process API: Classifier.check(ip, level), which gives the verdict at
//   low, medium and high at once.
// - Addresses: data-centre ASNs get one address each, drawn uniformly from
//   the ASN's address space in the same CSVs; published ranges get one
//   address each, drawn uniformly inside the CIDR; carriers get 5 addresses
//   per ASN the same way; VPN and Tor lists are addresses already; crawler
//   CIDRs get one address each. One seeded xorshift32 (SEED) draws them all,
//   so every run sees the same addresses.
// - Configurations, all over the same addresses:
//     baseline   the lists of a git ref (default 15a0304, before issue 15):
//                curated blacklist and whole-word keywords;
//     current    what the product runs: this tree's lists (blacklist,
//                keywords with stems, false friends and outweigh_carrier,
//                hosting-asns.csv as blacklist entries from medium) on the
//                database with its range feeds;
//     ablations  current without one ingredient at a time, to attribute
//                recall (range feeds; hosting list; hosting brands; each
//                stem group; outweigh_carrier), and the hosting list reduced to its
//                brianhama/X4BNet rows.
// - User agents are classified apart (classifyUserAgent), crawler lists
//   against browser lists. The carriers' whole address space is also checked
//   against the feeds exactly (carrierSpaceInFeeds), beyond the sample.
// - Rates are hits / total, with both counts; per-provider and per-operator
//   figures also give the median across providers.
import { execFileSync } from 'node:child_process';
import { readFileSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IpDatabase } from '../dist/ipdb/database.js';
import { Classifier } from '../dist/quality/classifier.js';
import { splitCsvLine } from '../dist/csv.js';
import { builtInLists } from '../dist/quality/lists.js';
import { classifyUserAgent } from '../dist/quality/user-agent.js';
import { cachedDatabase, median, round, table, writeResult, xorshift } from './lib.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EVAL = path.join(ROOT, 'eval', 'lists');
const SEED = 0x15d3c7;
const CARRIER_SAMPLES = 5;
const LEVELS = ['low', 'medium', 'high'];

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const BASELINE_REF = arg('baseline', '15a0304');
const QUICK = process.argv.includes('--quick');

// ---- reading -------------------------------------------------------------------------

function readCsv(file) {
  const [head, ...rows] = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l && !l.startsWith('#'));
  const fields = (l) => {
    const f = splitCsvLine(l);
    if (f === null) throw new Error(`${file}: a line with unbalanced quotes: ${l}`);
    return f;
  };
  const keys = fields(head);
  return rows.map((l) => Object.fromEntries(fields(l).map((v, i) => [keys[i], v])));
}

const readTsv = (file) =>
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'));

// ---- addresses --------------------------------------------------------------------------

const V4 = (n) => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
const V6 = (b) => {
  const h = b.toString(16).padStart(32, '0');
  return h.match(/.{4}/g).join(':');
};
function parseV4(s) {
  const p = s.split('.').map(Number);
  return ((p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]) >>> 0;
}
function parseV6(s) {
  const [a, b = ''] = s.split('::');
  const left = a ? a.split(':') : [];
  const right = s.includes('::') ? (b ? b.split(':') : []) : [];
  const groups = s.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

/** Random 53-bit-ish integer below n (number or bigint) from a 32-bit generator. */
function below(rand, n) {
  if (typeof n === 'bigint') {
    let x = 0n;
    for (let i = 0; i < 5; i++) x = (x << 32n) | BigInt(rand());
    return x % n;
  }
  return Math.floor(((rand() * 2 ** 21 + (rand() >>> 11)) / 2 ** 53) * n);
}

/** One address drawn uniformly inside a CIDR or a bare address. */
function inCidr(rand, cidr) {
  const [ip, bits] = cidr.trim().split('/');
  if (ip.includes(':')) {
    const len = bits === undefined ? 128 : Number(bits);
    const base = (parseV6(ip) >> BigInt(128 - len)) << BigInt(128 - len);
    return V6(base + below(rand, 1n << BigInt(128 - len)));
  }
  const len = bits === undefined ? 32 : Number(bits);
  const size = 2 ** (32 - len);
  const base = len === 0 ? 0 : (parseV4(ip) & ((0xffffffff << (32 - len)) >>> 0)) >>> 0;
  return V4((base + below(rand, size)) >>> 0);
}

/** The address space of every ASN in the ip-location-db CSVs: v4 rows as numbers, v6 rows as bigints. */
function asnSpace() {
  const require = createRequire(path.join(ROOT, 'package.json'));
  const dir = path.dirname(require.resolve('@ip-location-db/asn/package.json'));
  const space = new Map();
  const add = (asn, fam, start, end) => {
    let s = space.get(asn);
    if (!s) space.set(asn, (s = { v4: [], v6: [], v4size: 0, v6size: 0n }));
    s[fam].push([start, end]);
    if (fam === 'v4') s.v4size += end - start + 1;
    else s.v6size += end - start + 1n;
  };
  for (const line of readFileSync(path.join(dir, 'asn-ipv4-num.csv'), 'utf8').split(/\r?\n/)) {
    const f = line.split(',');
    if (f.length >= 3) add(Number(f[2]), 'v4', Number(f[0]), Number(f[1]));
  }
  for (const line of readFileSync(path.join(dir, 'asn-ipv6-num.csv'), 'utf8').split(/\r?\n/)) {
    const f = line.split(',');
    if (f.length >= 3) add(Number(f[2]), 'v6', BigInt(f[0]), BigInt(f[1]));
  }
  return space;
}

/** An address drawn uniformly from an ASN's IPv4 space (IPv6 when it has none), or null. */
function inAsn(rand, s) {
  if (!s) return null;
  if (s.v4size > 0) {
    let k = below(rand, s.v4size);
    for (const [a, b] of s.v4) {
      if (k <= b - a) return V4(a + k);
      k -= b - a + 1;
    }
  }
  if (s.v6size > 0n) {
    let k = below(rand, s.v6size);
    for (const [a, b] of s.v6) {
      if (k <= b - a) return V6(a + k);
      k -= b - a + 1n;
    }
  }
  return null;
}

// ---- the reference sets -------------------------------------------------------------------

const CRAWLER_OPERATORS = [
  ['Google', /google/i],
  ['Microsoft (Bing)', /bing/i],
  ['Apple', /applebot/i],
  ['Meta', /meta|facebook/i],
  ['WhatsApp', /whatsapp/i],
  ['X', /twitter/i],
  ['LinkedIn', /linkedin/i],
  ['Pinterest', /pinterest/i],
  ['Telegram', /telegram/i],
  ['DuckDuckGo', /duckduck/i],
  ['Yandex', /yandex/i],
  ['OpenAI', /openai|gptbot|chatgpt/i],
  ['Perplexity', /perplexity/i],
  ['Common Crawl', /ccbot/i],
  ['Internet Archive', /archive\.org/i],
];
const operatorOf = (bot) => CRAWLER_OPERATORS.find(([, re]) => re.test(bot))?.[0] ?? 'other';

function probes(space) {
  const rand = xorshift(SEED);
  const sets = {};
  const put = (set, group, ip, extra = {}) => (sets[set] ??= []).push({ group, ip, ...extra });

  const dcAsns = readCsv(path.join(EVAL, 'datacenter-asns.csv'));
  let absent = 0;
  for (const r of dcAsns) {
    const ip = inAsn(rand, space.get(Number(r.asn)));
    if (ip) put('datacenter-asns', 'all', ip, { asn: Number(r.asn) });
    else absent++;
  }
  for (const r of readCsv(path.join(EVAL, 'datacenter-ranges.csv'))) {
    put('datacenter-ranges', r.kind === 'cloud' || r.kind === 'hosting' ? 'cloud+hosting' : 'cdn+security-proxy', inCidr(rand, r.cidr), { provider: r.provider });
  }
  for (const r of readCsv(path.join(EVAL, 'vpn-exits.csv'))) put('vpn-exits', r.provider, r.ip);
  for (const line of readFileSync(path.join(EVAL, 'tor-exits.txt'), 'utf8').split(/\r?\n/)) {
    const ip = line.trim();
    if (ip && !ip.startsWith('#')) put('tor-exits', ip.includes(':') ? 'IPv6' : 'IPv4', ip);
  }
  for (const r of readCsv(path.join(EVAL, 'crawlers.csv'))) put('crawlers', operatorOf(r.bot), inCidr(rand, r.ip_or_cidr));
  const carriers = readCsv(path.join(EVAL, 'carrier-asns.csv'));
  for (const r of carriers) {
    for (let i = 0; i < CARRIER_SAMPLES; i++) {
      const ip = inAsn(rand, space.get(Number(r.asn)));
      if (ip) put('carriers', r.continent, ip, { asn: Number(r.asn) });
    }
  }
  return { sets, meta: { datacenter_asns: dcAsns.length, datacenter_asns_not_in_database: absent, carrier_asns: carriers.length } };
}

// ---- configurations -----------------------------------------------------------------------

function listsAt(ref) {
  const show = (file) => JSON.parse(execFileSync('git', ['show', `${ref}:src/quality/lists/${file}`], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'ignore'] }));
  const k = show('keywords.json');
  return {
    blacklist: show('asn-blacklist.json'),
    carriers: show('carrier-asns.json'),
    keywords: { strong: [...k.strong, ...(k.hosting_brands ?? [])], hosting_brands: k.hosting_brands ?? [], weak: k.weak, vpn_proxy: k.vpn_proxy, carrier: k.carrier, false_friends: k.false_friends ?? [], outweigh_carrier: k.outweigh_carrier ?? [] },
    hostingAsns: [],
  };
}

const STEM_GROUPS = {
  'host stems': /^\*?host|host\*?$/,
  'server stems': /server/,
  'vps/vds stems': /vps|vds/,
  'cloud stem': /cloud/,
  'datacenter/idc stems': /datacent|idc/,
  'vpn/proxy stems': /vpn|proxy/,
};

function withoutStems(lists, re) {
  const drop = (l) => l.filter((k) => !(k.includes('*') && re.test(k)));
  const k = lists.keywords;
  return { ...lists, keywords: { ...k, strong: drop(k.strong), weak: drop(k.weak), vpn_proxy: drop(k.vpn_proxy), outweigh_carrier: drop(k.outweigh_carrier) } };
}

/** The blacklist a configuration classifies with: curated entries as listed, hosting ASNs from medium. */
function blacklistOf(lists, hosting) {
  return [
    ...lists.blacklist.map((e) => ({ asn: e.asn, category: e.category, level: e.level })),
    ...hosting.map((e) => ({ asn: e.asn, category: e.category === 'vpn' ? 'vpn' : 'hosting', level: 'medium' })),
  ];
}

function configurations(current, shipped, plain) {
  const configs = [];
  try {
    const base = listsAt(BASELINE_REF);
    configs.push({ name: 'baseline', what: `lists of ${BASELINE_REF}: curated blacklist, whole-word keywords, no range feeds`, db: plain, lists: base, hosting: [] });
    configs.push({ name: 'baseline + hosting list', what: 'baseline keywords, plus hosting-asns.csv from medium, no range feeds', db: plain, lists: { ...current, keywords: base.keywords }, hosting: current.hostingAsns });
  } catch {
    process.stderr.write(`no baseline: git show ${BASELINE_REF} failed (not a git checkout?)\n`);
  }
  configs.push({ name: 'current', what: 'the product: stems, false friends, outweigh_carrier, hosting-asns.csv from medium, range feeds', db: shipped, lists: current, hosting: current.hostingAsns });
  configs.push({ name: '- range feeds', what: 'current on the database without feeds', db: plain, lists: current, hosting: current.hostingAsns });
  configs.push({ name: '- hosting list', what: 'current without hosting-asns.csv (its upstream lists still come as ASN feeds)', db: shipped, lists: current, hosting: [] });
  const brands = new Set(current.keywords.hosting_brands);
  configs.push({
    name: '- hosting brands',
    what: 'current without the hosting brands of keywords.json (hosting_brands)',
    db: shipped,
    lists: { ...current, keywords: { ...current.keywords, strong: current.keywords.strong.filter((k) => !brands.has(k)), hosting_brands: [] } },
    hosting: current.hostingAsns,
  });
  configs.push({
    name: 'hosting list: brianhama/X4BNet rows only',
    what: 'current with the stricter list (rows some list other than O-X-L names)',
    db: shipped,
    lists: current,
    hosting: current.hostingAsns.filter((e) => e.sources.some((s) => !s.startsWith('oxl'))),
  });
  if (!QUICK) {
    for (const [name, re] of Object.entries(STEM_GROUPS)) configs.push({ name: `- ${name}`, what: `current without the ${name}`, db: shipped, lists: withoutStems(current, re), hosting: current.hostingAsns });
    configs.push({ name: '- all stems', what: 'current without any stem', db: shipped, lists: withoutStems(current, /./), hosting: current.hostingAsns });
    configs.push({ name: '- outweigh_carrier', what: 'current, carrier words cancel every keyword again', db: shipped, lists: { ...current, keywords: { ...current.keywords, outweigh_carrier: [] } }, hosting: current.hostingAsns });
  }
  return configs;
}

// ---- measuring ----------------------------------------------------------------------------

const rate = (hits, n) => ({ rate: n === 0 ? null : round(hits / n, 4), hits, n });

function measure(config, sets) {
  const classifier = new Classifier(config.db, config.lists, blacklistOf(config.lists, config.hosting));
  const out = {};
  for (const [set, items] of Object.entries(sets)) {
    const byGroup = {};
    const blank = () => ({ found: 0, n: 0, low: 0, medium: 0, high: 0, foundHits: { low: 0, medium: 0, high: 0 } });
    const total = blank();
    const asnHit = {};
    for (const p of items) {
      const r = classifier.check(p.ip, 'medium');
      if (!r) throw new Error(`${set}: ${p.ip} is not an address`);
      const g = (byGroup[p.group] ??= blank());
      for (const t of [g, total]) {
        t.n++;
        if (r.found) t.found++;
        for (const L of LEVELS) {
          if (r.intercept[L]) t[L]++;
          if (r.intercept[L] && r.found) t.foundHits[L]++;
        }
      }
      if (p.asn !== undefined) {
        const a = (asnHit[p.asn] ??= { low: false, medium: false, high: false });
        for (const L of LEVELS) a[L] ||= r.intercept[L];
      }
    }
    const summarise = (t) => ({ n: t.n, found: t.found, ...Object.fromEntries(LEVELS.map((L) => [L, rate(t[L], t.n)])), found_only: Object.fromEntries(LEVELS.map((L) => [L, rate(t.foundHits[L], t.found)])) });
    out[set] = { all: summarise(total), groups: Object.fromEntries(Object.entries(byGroup).map(([k, v]) => [k, summarise(v)])) };
    if (set === 'carriers') {
      const asns = Object.values(asnHit);
      out[set].asns_with_a_hit = Object.fromEntries(LEVELS.map((L) => [L, rate(asns.filter((a) => a[L]).length, asns.length)]));
      out[set].asns_hit = Object.fromEntries(LEVELS.map((L) => [L, Object.entries(asnHit).filter(([, a]) => a[L]).map(([asn]) => Number(asn))]));
    }
    if (set === 'vpn-exits' || set === 'crawlers') {
      out[set].median_of_groups = Object.fromEntries(LEVELS.map((L) => [L, round(median(Object.values(out[set].groups).map((g) => g[L].rate)), 4)]));
    }
  }
  return out;
}

// ---- databases ----------------------------------------------------------------------------

/**
 * The same ASN data with no feed folded in: what the baseline and the
 * "- range feeds" ablation classify on. The product's database (with the
 * shipped feed snapshots) is bench/lib.js cachedDatabase().
 */
async function plainDatabase() {
  const { embeddedSource } = await import('../dist/ipdb/embedded.js');
  const { buildFromFiles, installDatabaseFile } = await import('../dist/ipdb/files.js');
  const source = embeddedSource();
  const file = path.join(os.tmpdir(), `splitguard-eval-plain-${process.pid}.trie`);
  installDatabaseFile(buildFromFiles(source.files, { sourceName: source.name, dataVersion: source.version }).bytes, file);
  const db = IpDatabase.open(file);
  unlinkSync(file); // the mapping outlives the name
  return db;
}

/**
 * How much of the carriers' address space (every range of every ASN of
 * eval/lists/carrier-asns.csv and the built-in carrier list) lies in a range
 * feed, by feed: exact, over the whole space rather than a sample. Shows what
 * a feed would cost real people before any sampling could.
 */
function carrierSpaceInFeeds(db, carrierAsns) {
  const total = { v4: 0n, v6: 0n };
  const byFeed = {};
  for (const family of [4, 6]) {
    const key = family === 4 ? 'v4' : 'v6';
    for (const { start, end, record } of db.ranges(family)) {
      if (!carrierAsns.has(db.asn(record))) continue;
      const size = end - start + 1n;
      total[key] += size;
      const feed = db.rangeFeed(record);
      if (feed) {
        const f = (byFeed[feed.name] ??= { label: feed.label, v4: 0n, v6: 0n, asns: new Set() });
        f[key] += size;
        f.asns.add(db.asn(record));
      }
    }
  }
  const share = (x, t) => (t === 0n ? 0 : Number((x * 1000000n) / t) / 1000000);
  return {
    carrier_v4_addresses: Number(total.v4),
    feeds: Object.fromEntries(
      Object.entries(byFeed).map(([name, f]) => [name, { label: f.label, v4_addresses: Number(f.v4), v4_share: share(f.v4, total.v4), v6_share: share(f.v6, total.v6), asns: [...f.asns].sort((x, y) => x - y) }]),
    ),
  };
}

function measureUserAgents(classify) {
  const crawlers = readTsv(path.join(EVAL, 'crawler-user-agents.txt'));
  const browsers = readTsv(path.join(EVAL, 'browser-user-agents.txt'));
  const byOperator = {};
  let hits = 0;
  for (const [bot, ua] of crawlers) {
    const c = classify(ua).crawler;
    hits += c ? 1 : 0;
    const g = (byOperator[operatorOf(bot)] ??= { hits: 0, n: 0 });
    g.n++;
    g.hits += c ? 1 : 0;
  }
  const fp = (rows) => rate(rows.filter(([, , ua]) => classify(ua).crawler).length, rows.length);
  const inApp = browsers.filter(([cat]) => /facebook|instagram/i.test(cat));
  return {
    crawler_recall: rate(hits, crawlers.length),
    by_operator: Object.fromEntries(Object.entries(byOperator).map(([k, v]) => [k, rate(v.hits, v.n)])),
    browser_false_positives: fp(browsers),
    modern_browser_false_positives: fp(browsers.filter(([, modern]) => modern === 'yes')),
    facebook_instagram_in_app_false_positives: fp(inApp),
    examples_flagged: browsers.filter(([, , ua]) => classify(ua).crawler).slice(0, 10).map(([cat, , ua]) => `${cat}: ${ua}`),
  };
}

// ---- report -------------------------------------------------------------------------------

// From the counts: the stored rate is already rounded to 4 places, and rounding it again to 3 can go the wrong way (852/855 is 0.99649, not 0.997).
const fmt = (r) => (r.rate === null ? 'n/a' : `${(r.hits / r.n).toFixed(3)} (${r.hits}/${r.n})`);

async function main() {
  const t0 = performance.now();
  const shipped = IpDatabase.open(await cachedDatabase());
  const plain = await plainDatabase();
  const current = builtInLists();
  const space = asnSpace();
  const { sets, meta } = probes(space);
  const configs = configurations(current, shipped, plain);
  const results = {};
  for (const c of configs) results[c.name] = measure(c, sets);

  // How independent the sets are from the shipped ASN list.
  const hostingSet = new Set(current.hostingAsns.map((e) => e.asn));
  const curatedSet = new Set(current.blacklist.map((e) => e.asn));
  const dcAsnList = readCsv(path.join(EVAL, 'datacenter-asns.csv')).map((r) => Number(r.asn));
  meta.datacenter_asns_on_hosting_list = dcAsnList.filter((a) => hostingSet.has(a)).length;
  meta.datacenter_asns_on_curated_blacklist = dcAsnList.filter((a) => curatedSet.has(a)).length;
  meta.carrier_asns_in_upstream_lists = readCsv(path.join(EVAL, 'carrier-asns.csv')).filter((r) => r.in_ship_hosting_sources?.trim().startsWith('yes')).length;

  const carrierAsns = new Set([...current.carriers.map((c) => c.asn), ...readCsv(path.join(EVAL, 'carrier-asns.csv')).map((r) => Number(r.asn))]);
  const carrierSpace = carrierSpaceInFeeds(shipped, carrierAsns);
  const uaResults = measureUserAgents(classifyUserAgent);

  const [A, B] = results.baseline ? ['baseline', 'current'] : ['current', 'current'];
  const rows = [];
  const line = (label, a, b) => rows.push([label, ...LEVELS.map((L) => fmt(a[L])), ...LEVELS.map((L) => fmt(b[L]))]);
  line('data-centre ASNs (1 address each)', results[A]['datacenter-asns'].all, results[B]['datacenter-asns'].all);
  line('data-centre ranges, cloud + hosting', results[A]['datacenter-ranges'].groups['cloud+hosting'], results[B]['datacenter-ranges'].groups['cloud+hosting']);
  line('  the same, addresses in the database', results[A]['datacenter-ranges'].groups['cloud+hosting'].found_only, results[B]['datacenter-ranges'].groups['cloud+hosting'].found_only);
  line('data-centre ranges, CDN + security proxy', results[A]['datacenter-ranges'].groups['cdn+security-proxy'], results[B]['datacenter-ranges'].groups['cdn+security-proxy']);
  for (const p of Object.keys(results[B]['vpn-exits'].groups).sort()) line(`VPN exits: ${p}`, results[A]['vpn-exits'].groups[p], results[B]['vpn-exits'].groups[p]);
  rows.push(['VPN exits: median of providers', ...LEVELS.map((L) => results[A]['vpn-exits'].median_of_groups[L].toFixed(3)), ...LEVELS.map((L) => results[B]['vpn-exits'].median_of_groups[L].toFixed(3))]);
  line('Tor exits', results[A]['tor-exits'].all, results[B]['tor-exits'].all);
  for (const f of ['IPv4', 'IPv6']) line(`  Tor exits, ${f}`, results[A]['tor-exits'].groups[f], results[B]['tor-exits'].groups[f]);
  for (const p of Object.keys(results[B].crawlers.groups).sort()) line(`crawlers by address: ${p}`, results[A].crawlers.groups[p], results[B].crawlers.groups[p]);
  line('carriers: addresses intercepted (false positives)', results[A].carriers.all, results[B].carriers.all);
  line('carriers: ASNs with an intercepted address', results[A].carriers.asns_with_a_hit, results[B].carriers.asns_with_a_hit);
  const head = ['set', `${A} low`, `${A} medium`, `${A} high`, `${B} low`, `${B} medium`, `${B} high`];
  console.log(table(head, rows));

  const attribution = configs.map((c) => [
    c.name,
    ...['datacenter-asns', 'datacenter-ranges', 'vpn-exits', 'tor-exits', 'crawlers'].map((s) =>
      fmt(s === 'datacenter-ranges' ? results[c.name][s].groups['cloud+hosting'].medium : results[c.name][s].all.medium),
    ),
    fmt(results[c.name].carriers.all.medium),
    fmt(results[c.name].carriers.all.high),
  ]);
  console.log(`\nat medium, by configuration:\n${table(['configuration', 'DC ASNs', 'DC ranges (cloud+hosting)', 'VPN exits', 'Tor exits', 'crawlers', 'carrier FP', 'carrier FP at high'], attribution)}`);
  console.log(`\nreference sets: ${JSON.stringify(meta)}`);
  const spaceRows = Object.entries(carrierSpace.feeds).map(([name, f]) => [name, f.label, f.v4_addresses, f.v4_share.toFixed(6), f.v6_share.toFixed(6), f.asns.join(' ')]);
  console.log(`\ncarrier address space inside a range feed (exact, ${carrierAsns.size} carrier ASNs): ${spaceRows.length ? `\n${table(['feed', 'label', 'IPv4 addresses', 'IPv4 share', 'IPv6 share', 'ASNs'], spaceRows)}` : 'none'}`);
  const u = uaResults;
  console.log(`\nuser agents: crawler recall ${fmt(u.crawler_recall)}, browser false positives ${fmt(u.browser_false_positives)} (modern ${fmt(u.modern_browser_false_positives)}, Facebook/Instagram in-app ${fmt(u.facebook_instagram_in_app_false_positives)})`);
  console.log(table(['crawler operator', 'recall'], Object.entries(u.by_operator).map(([k, v]) => [k, fmt(v)])));

  const file = writeResult('detection', {
    method: 'bench/detection.js header; docs/detection.md',
    database: shipped.info.version,
    seed: SEED,
    baseline_ref: BASELINE_REF,
    sets: Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, v.length])),
    notes: meta,
    configurations: configs.map((c) => ({ name: c.name, what: c.what, hosting_asns: c.hosting.length })),
    results,
    feeds: shipped.info.feeds.map((f) => ({ name: f.name, label: f.label, kind: f.kind, count: f.count })),
    carrier_space_in_feeds: carrierSpace,
    user_agents: uaResults,
    seconds: round((performance.now() - t0) / 1000, 1),
  });
  console.log(`\n${file}`);
  shipped.close();
  plain.close();
}

await main();
