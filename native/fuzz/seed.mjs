// Writes the seed corpus for fuzz_trie_reader: valid trie files from the
// TypeScript builder (compiled into dist/ by `npx tsc -p tsconfig.build.json`),
// plus a bare header. Each built seed is opened by the real reader first, so
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

for (const [name, rows] of Object.entries(seeds)) {
  const parsed = parseSources([{ name, data: new TextEncoder().encode(rows.join('\n')) }]);
  const { bytes } = buildDatabase(parsed, { sourceName: name, dataVersion: 'seed', buildTime: new Date(0) });
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  IpDatabase.open(file).close();
}
// The header alone: the file-size check and everything before it.
writeFileSync(path.join(dir, 'header.ipdb'), readFileSync(path.join(dir, 'full.ipdb')).subarray(0, 256));
console.log(`seeds written to ${dir}`);
