#!/usr/bin/env node
// Compiles src/quality/lists/hosting-asns.csv (asn,name,category,sources)
// from the upstream hosting/VPN ASN lists with the rules every database build
// applies to them (src/quality/hosting-list.ts), so the shipped file says
// exactly what a build from the shipped snapshots folds in.
//
//   node scripts/compile-hosting-asns.js              # the snapshots in feeds/asn-lists/
//   node scripts/compile-hosting-asns.js --brianhama bad-asn-list.csv --x4b-dc ASN.txt ...
//     [--ipdb asn-ipv4.csv --ipdb asn-ipv6.csv] [--review FILE] [--out FILE | --out -] [--check]
//
// A list given on the command line replaces its snapshot; --ipdb replaces the
// installed @ip-location-db/asn CSVs as the source of organization names.
// Builds nothing: run `npx tsc -p tsconfig.build.json` first.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(path.join(ROOT, 'dist', p));
const { FEEDS, snapshotFiles } = await dist('ipdb/feeds/registry.js');
const { parseFeed } = await dist('ipdb/feeds/parse.js');
const { parseSources } = await dist('ipdb/sources.js');
const { organizations } = await dist('ipdb/files.js');
const { embeddedSource } = await dist('ipdb/embedded.js');
const { compileHostingList, parseReview } = await dist('quality/hosting-list.js');
const { hostingListRules } = await dist('quality/lists.js');

const OUT = path.join(ROOT, 'src', 'quality', 'lists', 'hosting-asns.csv');
const LISTS = FEEDS.filter((f) => f.list);

function parseArgs(argv) {
  const args = { files: new Map(), ipdb: [], out: OUT, check: false, review: null };
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
    else if (LISTS.some((f) => `--${f.list}` === a)) args.files.set(a.slice(2), value());
    else throw new Error(`unknown argument ${a} (expected ${LISTS.map((f) => `--${f.list}`).join(', ')}, --ipdb, --review, --out, --check)`);
  }
  if (args.ipdb.length === 0) args.ipdb = embeddedSource().files;
  return args;
}

const quote = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

try {
  const args = parseArgs(process.argv.slice(2));
  const lists = {};
  for (const f of LISTS) {
    const files = args.files.has(f.list) ? [args.files.get(f.list)] : snapshotFiles(f);
    const format = args.files.has(f.list) ? f.format : f.snapshot.format;
    const names = new Map();
    for (const file of files) for (const [asn, name] of parseFeed(format, readFileSync(file), file).asnNames ?? []) if (!names.has(asn)) names.set(asn, name);
    lists[f.list] = names;
  }
  const parsed = parseSources(args.ipdb.map((file) => ({ name: path.basename(file), data: readFileSync(file) })));
  const rules = hostingListRules();
  if (args.review) rules.review = parseReview(readFileSync(args.review, 'utf8'), args.review);
  const { rows, left, stale, union } = compileHostingList({ ...rules, lists, names: organizations(parsed) });
  const csv = `asn,name,category,sources\n${rows.map((r) => `${r.asn},${quote(r.name)},${r.category},${r.sources}`).join('\n')}\n`;
  const count = (c) => rows.filter((r) => r.category === c).length;
  const report = [
    `${union} ASNs in the lists; ${rows.length} kept (${count('hosting')} hosting, ${count('vpn')} vpn)`,
    `left out: ${left.blacklist} on asn-blacklist.json, ${left.carrier} listed carriers, ${left.reviewDrop} dropped by the review, ${left.undecided.length} held without a review decision`,
    ...left.undecided.map((u) => `  undecided: ${u}`),
    ...(stale.length ? [`review entries no list names any more: ${stale.map((a) => `AS${a}`).join(', ')}`] : []),
  ].join('\n');
  process.stderr.write(`${report}\n`);
  if (args.check) {
    if (readFileSync(OUT, 'utf8') !== csv) {
      process.stderr.write('hosting-asns.csv differs from what the lists compile to\n');
      process.exit(1);
    }
    process.stderr.write('hosting-asns.csv is what the lists compile to\n');
  } else if (args.out === '-') {
    process.stdout.write(csv);
  } else {
    writeFileSync(args.out, csv);
    process.stderr.write(`wrote ${args.out}\n`);
  }
} catch (err) {
  process.stderr.write(`compile-hosting-asns: ${err.message}\n`);
  process.exit(2);
}
