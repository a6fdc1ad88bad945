#!/usr/bin/env node
// Compiles src/quality/lists/hosting-asns.csv (asn,name,category,sources)
// from the upstream hosting/VPN ASN lists, applying the same exclusions every
// time, so the list can be re-made from newer upstream files.
//
//   node scripts/compile-hosting-asns.js                 # the snapshots in feeds/asn-lists/
//   node scripts/compile-hosting-asns.js \
//     --brianhama bad-asn-list.csv \
//     --x4b-dc input/datacenter/ASN.txt --x4b-vpn input/vpn/ASN.txt \
//     --oxl-hosting kind_hosting.csv --oxl-vpn kind_vpn.csv \
//     --oxl-isp kind_isp.csv --oxl-education kind_education.csv \
//     [--ipdb asn-ipv4.csv --ipdb asn-ipv6.csv] [--review FILE] [--out FILE | --out -] [--check]
//
// Upstream formats (source ids are those of the `sources` column):
//   brianhama    CSV `ASN,Entity` (a header; some names after a stray space, quoted)
//   x4b-dc/-vpn  `AS<n> # name` a line
//   oxl-*        CSV `ASN,Organization` (a header)
// `--oxl-isp` and `--oxl-education` are negative evidence: an ASN there is held.
//
// Rules, in order, for every ASN of the union of the five sources:
//   1. on src/quality/lists/asn-blacklist.json       -> left out (the curated list wins)
//   2. on carrier-asns.json or eval/lists/carrier-asns.csv -> left out (a review
//      "keep" for such an ASN is an error)
//   3. a "drop" in src/quality/lists/hosting-asns-review.csv -> left out
//   4. held (a carrier word in its ip-location-db name, listed by O-X-L as ISP or
//      education, a CDN/transit name, a known ISP brand or an institution word,
//      or an organization name that also holds an ISP or carrier ASN):
//      kept only with a "keep" in the review file; otherwise left out and
//      printed as undecided
//   5. otherwise kept.
// category: the review's, else `vpn` when a VPN list (x4b-vpn, oxl-vpn) has it
// or the names name a VPN operator, else `hosting`.
// name: the organization in the ip-location-db CSVs (one per ASN), else the
// first source's own name, else the placeholder `AS<n>`.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LISTS = path.join(ROOT, 'src', 'quality', 'lists');
const SOURCE_IDS = ['brianhama', 'x4b-dc', 'x4b-vpn', 'oxl-hosting', 'oxl-vpn'];
const SNAPSHOTS = {
  brianhama: 'feeds/asn-lists/brianhama-bad-asn-list.csv',
  'x4b-dc': 'feeds/asn-lists/x4bnet-datacenter-ASN.txt',
  'x4b-vpn': 'feeds/asn-lists/x4bnet-vpn-ASN.txt',
  'oxl-hosting': 'feeds/asn-lists/oxl-kind_hosting.csv',
  'oxl-vpn': 'feeds/asn-lists/oxl-kind_vpn.csv',
  'oxl-isp': 'feeds/asn-lists/oxl-kind_isp.csv',
  'oxl-education': 'feeds/asn-lists/oxl-kind_education.csv',
};

// ---- arguments ---------------------------------------------------------------

function parseArgs(argv) {
  const args = { files: {}, ipdb: [], out: path.join(LISTS, 'hosting-asns.csv'), check: false, review: path.join(LISTS, 'hosting-asns-review.csv') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--ipdb') args.ipdb.push(value());
    else if (a === '--out') args.out = value();
    else if (a === '--check') args.check = true;
    else if (a === '--review') args.review = value();
    else if (a.startsWith('--') && a.slice(2) in SNAPSHOTS) args.files[a.slice(2)] = value();
    else throw new Error(`unknown argument ${a} (expected --${Object.keys(SNAPSHOTS).join(', --')}, --ipdb, --review, --out, --check)`);
  }
  // No source named: the shipped snapshots, all of them.
  if (Object.keys(args.files).length === 0) {
    for (const [id, rel] of Object.entries(SNAPSHOTS)) args.files[id] = path.join(ROOT, rel);
  }
  if (!SOURCE_IDS.some((id) => args.files[id])) throw new Error('name at least one source list');
  if (args.ipdb.length === 0) {
    const require = createRequire(path.join(ROOT, 'package.json'));
    const dir = path.dirname(require.resolve('@ip-location-db/asn/package.json'));
    args.ipdb = [path.join(dir, 'asn-ipv4.csv'), path.join(dir, 'asn-ipv6.csv')];
  }
  return args;
}

// ---- readers -------------------------------------------------------------------

/** Fields of one CSV line (RFC 4180 quotes; spaces before a quoted field are skipped). */
export function csvFields(line) {
  const out = [];
  let i = 0;
  for (;;) {
    while (line[i] === ' ' && line[i + 1] === '"') i++;
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quote in: ${line}`);
        s += line.slice(i, q);
        if (line[q + 1] === '"') {
          s += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(s);
      const comma = line.indexOf(',', i);
      if (comma < 0) return out;
      i = comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      out.push(comma < 0 ? line.slice(i) : line.slice(i, comma));
      if (comma < 0) return out;
      i = comma + 1;
    }
  }
}

const lines = (file) => readFileSync(file, 'utf8').split(/\r?\n/);

/** `ASN,Name` CSV with a header: Map asn -> name. */
function readAsnCsv(file) {
  const out = new Map();
  for (const line of lines(file).slice(1)) {
    if (!line.trim()) continue;
    const [a, ...rest] = csvFields(line);
    const n = /^\s*"?(?:AS)?(\d+)"?\s*$/i.exec(a);
    if (n) out.set(Number(n[1]), rest.join(',').trim());
  }
  return out;
}

/** `AS<n> # name` a line: Map asn -> name. */
function readAsLines(file) {
  const out = new Map();
  for (const line of lines(file)) {
    const m = /^\s*AS(\d+)\s*(?:#\s*(.*))?$/i.exec(line.trim());
    if (m) out.set(Number(m[1]), (m[2] ?? '').trim());
  }
  return out;
}

const READERS = {
  brianhama: readAsnCsv,
  'x4b-dc': readAsLines,
  'x4b-vpn': readAsLines,
  'oxl-hosting': readAsnCsv,
  'oxl-vpn': readAsnCsv,
  'oxl-isp': readAsnCsv,
  'oxl-education': readAsnCsv,
};

/** The most frequent organization of every ASN in ip-location-db CSVs (`start,end,asn,org`). */
function readIpdbNames(files) {
  const counts = new Map();
  for (const file of files) {
    for (const line of lines(file)) {
      if (!line) continue;
      const f = csvFields(line);
      const asn = Number(f[2]);
      if (!Number.isInteger(asn) || asn <= 0) continue;
      const org = f.slice(3).join(',');
      let m = counts.get(asn);
      if (!m) counts.set(asn, (m = new Map()));
      m.set(org, (m.get(org) ?? 0) + 1);
    }
  }
  const names = new Map();
  for (const [asn, m] of counts) names.set(asn, [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0]);
  return names;
}

// ---- the held-back checks (the research's build_asns.py, same words) --------------

const keywords = JSON.parse(readFileSync(path.join(LISTS, 'keywords.json'), 'utf8'));
const CARRIER_WORDS = new Set([...keywords.carrier, 'telco', 'kabel', 'adsl', 'vdsl', 'gpon', '4g', '5g', '3g', 'provedor', 'residential']);
const CDN_NAME = /cloudflare|akamai|fastly|hurricane electric|centurylink|lumen|level 3|cogent|zscaler|incapsula|imperva|edgecast|limelight|edgio|stackpath|cdn77|bunny|gcore|g-core/i;
const ISP_OR_INSTITUTION =
  /\b(charter|comcast|cox communications|spectrum|frontier communications|windstream communications|mediacom|altice|suddenlink|tata teleservices|reliance jio|bharti|hathway|chinanet|china telecom|china unicom|china mobile|unicom|rostelecom|megafon|vimpelcom|beeline|kyivstar|turk telekom|ttnet|superonline|vodafone|orange|telia|telenor|telstra|optus|airtel|mtn|globacom|safaricom|claro|telcel|movistar|telefonica|vivo|tim s|college|university|universidad|universidade|universitat|school|bank|ministry|government|research and education|academic|educational|education network|nren|janet|renater|dfn-verein|garr|rediris|surfnet|switch)\b/i;
const VPN_OPERATOR = /vpn|tefincom|packethub|privax|surfshark|mullvad|windscribe|proton ag|datacamp/i;
/** Linode's ASN carries Akamai's name since the takeover; it is a hoster. */
const CDN_NAME_EXCEPT = new Set([63949]);

const tokens = (s) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function heldReasons(asn, name, neg, ispNamed) {
  const r = [];
  const carrierWords = tokens(name).filter((t) => CARRIER_WORDS.has(t));
  if (carrierWords.length) r.push(`carrier word (${[...new Set(carrierWords)].join('/')})`);
  if (neg.isp.has(asn)) r.push('O-X-L lists it as ISP');
  if (neg.education.has(asn)) r.push('O-X-L lists it as education');
  if (!CDN_NAME_EXCEPT.has(asn) && CDN_NAME.test(name)) r.push('CDN/relay/transit name');
  const m = ISP_OR_INSTITUTION.exec(name);
  if (m) r.push(`ISP brand or institution word (${m[0]})`);
  const twin = ispNamed.get(name)?.find((a) => a !== asn);
  if (twin !== undefined) r.push(`its organization also holds AS${twin}, an ISP or carrier`);
  return r;
}

// ---- repository lists ------------------------------------------------------------

function readReview(file) {
  const out = new Map();
  const all = lines(file);
  if (all[0] !== 'asn,decision,category,name,reason') throw new Error(`${file} line 1: header must be asn,decision,category,name,reason`);
  all.slice(1).forEach((line, i) => {
    if (!line) return;
    const [asn, decision, category] = csvFields(line);
    const where = `${file} line ${i + 2}`;
    if (!/^\d+$/.test(asn)) throw new Error(`${where}: asn must be a number`);
    if (decision !== 'keep' && decision !== 'drop') throw new Error(`${where}: decision must be keep or drop`);
    if (decision === 'keep' && category !== 'hosting' && category !== 'vpn') throw new Error(`${where}: a keep needs category hosting or vpn`);
    if (out.has(Number(asn))) throw new Error(`${where}: AS${asn} is reviewed twice`);
    out.set(Number(asn), { decision, category });
  });
  return out;
}

function readCarrierAsns() {
  const set = new Set(JSON.parse(readFileSync(path.join(LISTS, 'carrier-asns.json'), 'utf8')).map((c) => c.asn));
  try {
    for (const line of lines(path.join(ROOT, 'eval', 'lists', 'carrier-asns.csv')).slice(1)) {
      const a = Number(csvFields(line)[0]);
      if (Number.isInteger(a) && a > 0) set.add(a);
    }
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  return set;
}

// ---- compile ---------------------------------------------------------------------

const quote = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export { parseArgs };

export function compile(args) {
  const src = {};
  for (const [id, file] of Object.entries(args.files)) src[id] = READERS[id](file);
  const neg = { isp: src['oxl-isp'] ?? new Map(), education: src['oxl-education'] ?? new Map() };
  const names = readIpdbNames(args.ipdb);
  const blacklist = new Set(JSON.parse(readFileSync(path.join(LISTS, 'asn-blacklist.json'), 'utf8')).map((e) => e.asn));
  const carriers = readCarrierAsns();
  const review = readReview(args.review ?? path.join(LISTS, 'hosting-asns-review.csv'));
  // Organizations (by their exact ip-location-db name) that also hold an ASN
  // O-X-L lists as ISP or a listed carrier: a hosting ASN under such a name
  // has often changed hands (X4BNet's "Empire Host" is now VERO S.A, a
  // Brazilian ISP), so it is held for review.
  const ispNamed = new Map();
  for (const [asn, name] of names) {
    if (!neg.isp.has(asn) && !carriers.has(asn)) continue;
    if (/^AS\d+$/.test(name)) continue;
    ispNamed.set(name, [...(ispNamed.get(name) ?? []), asn]);
  }

  const union = new Map();
  for (const id of SOURCE_IDS) {
    for (const [asn, name] of src[id] ?? []) {
      if (asn === 0) continue;
      let e = union.get(asn);
      if (!e) union.set(asn, (e = { sources: [], names: [] }));
      e.sources.push(id);
      e.names.push(name);
    }
  }

  const rows = [];
  const left = { blacklist: 0, carrier: 0, reviewDrop: 0, undecided: [] };
  for (const asn of [...union.keys()].sort((a, b) => a - b)) {
    const e = union.get(asn);
    // No name anywhere (some O-X-L rows, never announced): the data set's own placeholder form.
    const name = names.get(asn) ?? e.names.find((n) => n) ?? `AS${asn}`;
    const r = review.get(asn);
    if (blacklist.has(asn)) {
      left.blacklist++;
      continue;
    }
    if (carriers.has(asn)) {
      if (r?.decision === 'keep') throw new Error(`hosting-asns-review.csv keeps AS${asn}, which is a listed carrier`);
      left.carrier++;
      continue;
    }
    if (r?.decision === 'drop') {
      left.reviewDrop++;
      continue;
    }
    const held = heldReasons(asn, name, neg, ispNamed);
    if (held.length && r?.decision !== 'keep') {
      left.undecided.push(`AS${asn} ${name} [${e.sources.join(';')}]: ${held.join('; ')}`);
      continue;
    }
    const text = `${name} ${e.names.join(' ')}`.replace(/https?:\/\/\S+/g, '');
    const category = r?.category || (e.sources.includes('x4b-vpn') || e.sources.includes('oxl-vpn') || VPN_OPERATOR.test(text) ? 'vpn' : 'hosting');
    rows.push({ asn, name, category, sources: e.sources.join(';') });
  }
  const stale = [...review.keys()].filter((a) => !union.has(a));
  const read = Object.fromEntries(SOURCE_IDS.filter((id) => src[id]).map((id) => [id, [...src[id].keys()].filter((a) => a !== 0).length]));
  const kept = Object.fromEntries(SOURCE_IDS.map((id) => [id, rows.filter((r) => r.sources.split(';').includes(id)).length]));
  return { rows, left, stale, union: union.size, read, kept };
}

export function toCsv(rows) {
  return `asn,name,category,sources\n${rows.map((r) => `${r.asn},${quote(r.name)},${r.category},${r.sources}`).join('\n')}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const args = parseArgs(process.argv.slice(2));
    const { rows, left, stale, union, read, kept } = compile(args);
    const csv = toCsv(rows);
    const count = (c) => rows.filter((r) => r.category === c).length;
    const report = [
      `${union} ASNs in the sources; ${rows.length} kept (${count('hosting')} hosting, ${count('vpn')} vpn)`,
      `per source, read / kept: ${Object.keys(read).map((id) => `${id} ${read[id]} / ${kept[id]}`).join(', ')}`,
      `left out: ${left.blacklist} on asn-blacklist.json, ${left.carrier} listed carriers, ${left.reviewDrop} dropped by the review, ${left.undecided.length} held without a review decision`,
      ...left.undecided.map((u) => `  undecided: ${u}`),
      ...(stale.length ? [`review entries no source lists any more: ${stale.map((a) => `AS${a}`).join(', ')}`] : []),
    ].join('\n');
    if (args.check) {
      const current = readFileSync(path.join(LISTS, 'hosting-asns.csv'), 'utf8');
      process.stderr.write(`${report}\n`);
      if (current !== csv) {
        process.stderr.write('hosting-asns.csv differs from what the sources compile to\n');
        process.exit(1);
      }
      process.stderr.write('hosting-asns.csv is what the sources compile to\n');
    } else if (args.out === '-') {
      process.stdout.write(csv);
      process.stderr.write(`${report}\n`);
    } else {
      writeFileSync(args.out, csv);
      process.stderr.write(`${report}\nwrote ${args.out}\n`);
    }
  } catch (err) {
    process.stderr.write(`compile-hosting-asns: ${err.message}\n`);
    process.exit(2);
  }
}
