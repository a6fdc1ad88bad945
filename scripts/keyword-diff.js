#!/usr/bin/env node
// What a change to the keyword lists does on the full data set: every
// organization of the embedded @ip-location-db/asn package is classified
// with the lists of a baseline commit and with the working tree's lists
// (src/quality/lists, read through dist/), and the verdicts compared.
//
//   npm run build && node scripts/keyword-diff.js [--baseline <git ref>] [--level medium|high] [--json FILE]
//
// Both sides use the same classifier code (this tree's), the same curated
// blacklist (this tree's) and no hosting-asns.csv, so the difference is the
// keyword and carrier lists alone. Printed: how many ASNs each level newly
// intercepts or lets pass, each one with its organization and the keyword,
// and, marked, every newly intercepted ASN that any carrier reference knows:
// carrier-asns.json, eval/lists/carrier-asns.csv, O-X-L kind_isp and
// kind_education (feeds/asn-lists/). The goal is no new carrier there.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IpDatabase } from '../dist/ipdb/database.js';
import { Classifier, isIntercept } from '../dist/quality/classifier.js';
import { builtInLists } from '../dist/quality/lists.js';
import { cachedDatabase } from '../bench/lib.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_BASELINE = '15a0304';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** The lists of a git ref, in the shape builtInLists() returns (no stems then: missing fields are empty). */
export function listsAt(ref) {
  const show = (file) => JSON.parse(execFileSync('git', ['show', `${ref}:src/quality/lists/${file}`], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 }));
  const k = show('keywords.json');
  return {
    blacklist: show('asn-blacklist.json'),
    carriers: show('carrier-asns.json'),
    keywords: {
      // A commit's hosting brands are matched as strong words (lists.ts checkKeywords).
      strong: [...k.strong, ...(k.hosting_brands ?? [])],
      hosting_brands: k.hosting_brands ?? [],
      weak: k.weak,
      vpn_proxy: k.vpn_proxy,
      carrier: k.carrier,
      false_friends: k.false_friends ?? [],
      outweigh_carrier: k.outweigh_carrier ?? [],
    },
    hostingAsns: [],
  };
}

/** ASN sets of the carrier references, by name. */
export function carrierReferences(lists) {
  const csvAsns = (file, skipHeader = true) =>
    new Set(
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .slice(skipHeader ? 1 : 0)
        .map((l) => Number(l.split(',')[0]))
        .filter((a) => Number.isInteger(a) && a > 0),
    );
  return {
    'carrier-asns.json': new Set(lists.carriers.map((c) => c.asn)),
    'eval carrier list': csvAsns('eval/lists/carrier-asns.csv'),
    'O-X-L kind_isp': csvAsns('feeds/asn-lists/oxl-kind_isp.csv'),
    'O-X-L kind_education': csvAsns('feeds/asn-lists/oxl-kind_education.csv'),
  };
}

const LEVELS = { low: 1, medium: 2, high: 3 };

/** Per level: records newly intercepted and newly passed going from `before` to `after`. */
export function diff(db, before, after) {
  const out = {};
  for (const [name, level] of Object.entries(LEVELS)) {
    const gained = [];
    const lost = [];
    for (let r = 1; r < db.recordCount; r++) {
      const a = isIntercept(before.verdict(r, level));
      const b = isIntercept(after.verdict(r, level));
      if (a !== b) (b ? gained : lost).push(r);
    }
    out[name] = { gained, lost };
  }
  return out;
}

async function main() {
  const baseline = arg('baseline', DEFAULT_BASELINE);
  const shown = arg('level', 'medium');
  const db = IpDatabase.open(await cachedDatabase());
  const now = builtInLists();
  const then = listsAt(baseline);
  // The same (current) curated blacklist on both sides: only the keywords differ.
  const before = new Classifier(db, then, now.blacklist);
  const after = new Classifier(db, now, now.blacklist);
  const refs = carrierReferences(now);
  const d = diff(db, before, after);
  const describe = (r) => {
    const asn = db.asn(r);
    const ip = firstAddress(db, r);
    const c = ip ? after.check(ip, 'high') : null;
    const known = Object.entries(refs)
      .filter(([, set]) => set.has(asn))
      .map(([n]) => n);
    return {
      asn,
      organization: db.organization(r),
      keyword: c?.signals.org_keyword ?? c?.signals.vpn_proxy ?? null,
      carrier_whitelist_before: ip ? (before.check(ip, 'high')?.signals.carrier_whitelist ?? null) : null,
      carrier_references: known,
    };
  };
  const report = { baseline, database: db.info.version, records: db.recordCount - 1, levels: {} };
  for (const level of Object.keys(LEVELS)) {
    const { gained, lost } = d[level];
    report.levels[level] = { gained: gained.map(describe), lost: lost.map(describe) };
  }
  for (const level of Object.keys(LEVELS)) {
    const L = report.levels[level];
    const carriers = L.gained.filter((g) => g.carrier_references.length > 0);
    console.log(`${level}: ${L.gained.length} ASNs newly intercepted, ${L.lost.length} no longer; ${carriers.length} of the new ones on a carrier reference`);
  }
  const L = report.levels[shown];
  console.log(`\nnewly intercepted at ${shown} (ASN, organization, keyword${' '}[carrier references]):`);
  for (const g of L.gained) {
    console.log(`  AS${g.asn}\t${g.organization}\t${g.keyword}${g.carrier_whitelist_before ? `\t(was cancelled by '${g.carrier_whitelist_before}')` : ''}${g.carrier_references.length ? `\t[${g.carrier_references.join(', ')}]` : ''}`);
  }
  if (L.lost.length) {
    console.log(`\nno longer intercepted at ${shown}:`);
    for (const g of L.lost) console.log(`  AS${g.asn}\t${g.organization}`);
  }
  const json = arg('json', null);
  if (json) writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  db.close();
}

/** An address of a record: the first address of one of its ranges, found by probing the database's own ranges. */
function firstAddress(db, record) {
  return firstAddresses(db).get(record) ?? null;
}

let byRecord = null;
function firstAddresses(db) {
  if (byRecord) return byRecord;
  byRecord = new Map();
  const require = (p) => readFileSync(p, 'utf8');
  const dir = path.join(ROOT, 'node_modules', '@ip-location-db', 'asn');
  for (const file of ['asn-ipv4.csv', 'asn-ipv6.csv']) {
    for (const line of require(path.join(dir, file)).split('\n')) {
      const comma = line.indexOf(',');
      if (comma < 0) continue;
      const start = line.slice(0, comma);
      const r = db.lookupText(start);
      if (r !== 0 && !byRecord.has(r)) byRecord.set(r, start);
    }
  }
  return byRecord;
}

if (path.resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) await main();
