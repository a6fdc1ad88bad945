// Writes the seed corpus for fuzz_trie_reader: valid trie files from the
// TypeScript builder (compiled into dist/ by `npx tsc -p tsconfig.build.json`),
// plus a bare header. Two of the built seeds carry feeds (FEEDS, and records
// whose feed slots name them): range feeds of several labels over both
// families, one ASN feed, feed ranges inside ASN ranges, across their edges
// and in unannounced space. Each built seed is opened by the real reader first, so
// a builder/reader mismatch stops run.sh here rather than fuzzing garbage.
//
// usage: node native/fuzz/seed.mjs <corpus-dir>
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildDatabase } from '../../dist/ipdb/build.js';
import { IpDatabase } from '../../dist/ipdb/database.js';
import { parseSources } from '../../dist/ipdb/sources.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node native/fuzz/seed.mjs <corpus-dir>');
mkdirSync(dir, { recursive: true });

// 40 separate /24s in one /16: a node wide enough for a DIR block of many buckets.
const wide = Array.from({ length: 40 }, (_, i) => `172.16.${2 * i}.0,172.16.${2 * i}.255,${64520 + (i % 3)},Wide ${i % 3}`);

// A CIDR as an inclusive [start, end] of bigints (FeedInput ranges).
function cidr(text) {
  const [addr, bits] = text.split('/');
  const v6 = addr.includes(':');
  const width = v6 ? 128 : 32;
  let n = 0n;
  if (v6) {
    const [head, tail = ''] = addr.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    for (const g of [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]) n = (n << 16n) | BigInt(parseInt(g, 16));
  } else {
    for (const o of addr.split('.')) n = (n << 8n) | BigInt(o);
  }
  const host = (1n << BigInt(width - Number(bits))) - 1n;
  return [n & ~host, n | host];
}
const rangeFeed = (name, label, v4, v6) => ({
  name, label, version: `${name}-seed`, fetchedAt: 1_790_000_000_000,
  ranges: { v4: v4.map(cidr), v6: v6.map(cidr) },
});

// Feeds of the seeds that carry them (the others get none): every label,
// both families, one ASN feed; feed ranges inside ASN ranges, across their
// edges and in unannounced space.
const feeds = {
  'feeds.ipdb': [
    rangeFeed('relay-egress', 'relay', ['8.8.8.128/25', '172.16.4.0/23'], ['2a00:1450:4001::/48']),
    rangeFeed('cloud-ranges', 'cloud', ['1.0.0.0/24', '10.20.64.0/24', '203.0.113.0/24', '8.8.8.0/24'], ['2001:db8:1::/64', '2600:1f00::/24']),
    rangeFeed('vpn-exits', 'vpn', ['10.20.0.128/25', '198.51.100.7/32'], ['2001:db8::/33', '2001:db8:1::1/128']),
    rangeFeed('tor-exits', 'tor', ['100.64.1.1/32', '100.64.1.2/31'], ['2a00:1450::1/128']),
    rangeFeed('hosting-agg', 'hosting', ['172.16.0.0/16'], ['2a00:1450:8000::/33']),
    rangeFeed('crawlers', 'crawler', ['66.249.64.0/19'], ['2001:4860:4801::/48']),
    { name: 'asn-hosting', label: 'hosting', version: 'asn-seed', fetchedAt: 1_790_000_000_000, asns: [64500, 64520, 15169] },
  ],
  'feeds-small.ipdb': [
    rangeFeed('cloud-small', 'cloud', ['1.2.3.0/24', '9.9.9.9/32'], ['2001:0:1::/48', '2400:cb00::/32']),
    rangeFeed('tor-small', 'tor', ['1.200.0.0/16'], ['2001::5/128']),
  ],
};

const seeds = {
  // Every structure the format has: root leaves, IPv4 nodes, a wide
  // node, an IPv6 chain down to depth 7, a second IPv6 subtree, UTF-8.
  'full.ipdb': [
    '1.0.0.0,1.0.0.255,13335,Cloudflare',
    '8.8.8.0,8.8.8.255,15169,Google LLC',
    '10.20.0.0,10.20.63.255,64500,Alpha Net',
    '10.20.64.0,10.20.64.255,64501,Beta Hosting',
    '10.20.65.0,10.20.127.255,64500,Alpha Net',
    '10.20.128.0,10.20.255.255,64502,Société Exemple',
    '100.64.0.0,100.127.255.255,64503,Shared Space',
    ...wide,
    '2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,64510,Documentation Six',
    '2001:db8:1::,2001:db8:1:ffff:ffff:ffff:ffff:ffff,64511,Nested Forty-Eight',
    '2001:db8:1::1,2001:db8:1::1,64512,Single Host',
    '2a00:1450::,2a00:1450:ffff:ffff:ffff:ffff:ffff:ffff,15169,Google LLC',
    '2a00:1450:4001::,2a00:1450:4001:ffff:ffff:ffff:ffff:ffff,15169,"Google Ireland, Ltd."',
  ],
  // The least a file can hold: one row per family, no node below a root.
  'small.ipdb': ['1.0.0.0,1.255.255.255,13335,One', '2001::,2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff,64510,Two'],
};
// The same rows with feeds folded in (feeds above).
seeds['feeds.ipdb'] = seeds['full.ipdb'];
seeds['feeds-small.ipdb'] = seeds['small.ipdb'];

for (const [name, rows] of Object.entries(seeds)) {
  const parsed = parseSources([{ name, data: new TextEncoder().encode(rows.join('\n')) }]);
  const { bytes, report } = buildDatabase(parsed, { sourceName: name, dataVersion: 'seed', buildTime: new Date(0), feeds: feeds[name] });
  if (feeds[name] && report.feeds.length !== feeds[name].length) throw new Error(`${name}: feeds not folded in`);
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  IpDatabase.open(file).close();
}
// The header alone: the file-size check and everything before it.
writeFileSync(path.join(dir, 'header.ipdb'), readFileSync(path.join(dir, 'full.ipdb')).subarray(0, 256));
console.log(`seeds written to ${dir}`);
