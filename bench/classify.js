// bench:classify: what classification adds to a lookup, on the full embedded
// database with the built-in lists.
//
// Figures: over 1M random IPv4 addresses (seeded xorshift, the same every
// run), the bare lookup (db.lookup4) against lookup + classification
// (classifier.verdict(db.lookup4(ip), 2), level medium), and the same pair in
// the 16-byte form the redirect sees (lookupBytes on an IPv4-mapped address
// copied into one reused buffer, as uWebSockets.js hands it over).
//
// Method: the bare lookup is the baseline, measured in the same run. Rounds
// alternate baseline and classified (A B A B ..., at least 7 rounds); each
// figure is the median over rounds of ns per address, and the overhead is the
// median of the per-round ratios classified / bare. Goal: ratio <= 1.3.
// The noise floor is the same ratio for the bare lookup against itself (a
// third timing of it in every round); the load average is recorded with it.
import os from 'node:os';
import { IpDatabase } from '../dist/ipdb/database.js';
import { Classifier, isIntercept } from '../dist/quality/classifier.js';
import { builtInLists } from '../dist/quality/lists.js';
import { cachedDatabase, round, summary, table, writeResult, xorshift } from './lib.js';

const N = 1_000_000;
const ROUNDS = Math.max(7, Number(process.env.BENCH_ROUNDS || 11));
const MEDIUM = 2;
const rand = xorshift(0xc1a55);

const db = IpDatabase.open(await cachedDatabase());
const lists = builtInLists();
let t = performance.now();
const classifier = new Classifier(db, lists, lists.blacklist);
const classifierMs = performance.now() - t;

// Inputs: IPv4 integers, and the same addresses as IPv4-mapped IPv6 bytes,
// flat, copied one at a time into a reused 16-byte buffer.
const ips = new Uint32Array(N);
for (let i = 0; i < N; i++) ips[i] = rand();
const mappedFlat32 = new Uint32Array(N * 4);
{
  const bytes = new Uint8Array(mappedFlat32.buffer);
  for (let i = 0; i < N; i++) {
    bytes[16 * i + 10] = 0xff;
    bytes[16 * i + 11] = 0xff;
    bytes[16 * i + 12] = ips[i] >>> 24;
    bytes[16 * i + 13] = (ips[i] >>> 16) & 0xff;
    bytes[16 * i + 14] = (ips[i] >>> 8) & 0xff;
    bytes[16 * i + 15] = ips[i] & 0xff;
  }
}
const hot = new Uint8Array(16);
const hot32 = new Uint32Array(hot.buffer);
function copyHot(i) {
  hot32[0] = mappedFlat32[4 * i];
  hot32[1] = mappedFlat32[4 * i + 1];
  hot32[2] = mappedFlat32[4 * i + 2];
  hot32[3] = mappedFlat32[4 * i + 3];
}

// Agreement check before timing: both forms find the same records, and the
// verdicts are those of the cold path's check().
let found = 0;
let intercepted = 0;
for (let i = 0; i < N; i++) {
  const r = db.lookup4(ips[i]);
  copyHot(i);
  if (db.lookupBytes(hot) !== r) throw new Error(`lookupBytes and lookup4 disagree on address ${i}`);
  if (r !== 0) found++;
  if (isIntercept(classifier.verdict(r, MEDIUM))) intercepted++;
}
for (let i = 0; i < 1000; i++) {
  const ip = ips[i];
  const text = `${ip >>> 24}.${(ip >>> 16) & 0xff}.${(ip >>> 8) & 0xff}.${ip & 0xff}`;
  if (classifier.check(text, 'medium').intercepted !== isIntercept(classifier.verdict(db.lookup4(ip), MEDIUM))) {
    throw new Error(`check() and verdict() disagree on ${text}`);
  }
}

let sink = 0;
function time(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / N;
}
const arms = {
  'lookup4 (bare)': () => {
    for (let i = 0; i < N; i++) sink += db.lookup4(ips[i]);
  },
  'lookup4 + verdict': () => {
    for (let i = 0; i < N; i++) sink += classifier.verdict(db.lookup4(ips[i]), MEDIUM);
  },
  'lookup4 (bare, repeated)': () => {
    for (let i = 0; i < N; i++) sink += db.lookup4(ips[i]);
  },
  'lookupBytes 16-byte (bare)': () => {
    for (let i = 0; i < N; i++) {
      copyHot(i);
      sink += db.lookupBytes(hot);
    }
  },
  'lookupBytes 16-byte + verdict': () => {
    for (let i = 0; i < N; i++) {
      copyHot(i);
      sink += classifier.verdict(db.lookupBytes(hot), MEDIUM);
    }
  },
};
const pairs = [
  ['lookup4 (bare)', 'lookup4 + verdict'],
  ['lookupBytes 16-byte (bare)', 'lookupBytes 16-byte + verdict'],
];

for (const fn of Object.values(arms)) fn(); // warm-up: every loop optimised before timing
const samples = Object.fromEntries(Object.keys(arms).map((k) => [k, []]));
const loadBefore = os.loadavg()[0];
for (let r = 0; r < ROUNDS; r++) {
  for (const [bare, classified] of pairs) {
    samples[bare].push(time(arms[bare]));
    samples[classified].push(time(arms[classified]));
  }
  samples['lookup4 (bare, repeated)'].push(time(arms['lookup4 (bare, repeated)']));
}
const loadAfter = os.loadavg()[0];

const ns = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v)]));
const ratios = Object.fromEntries(
  pairs.map(([bare, classified]) => [classified, summary(samples[classified].map((c, i) => c / samples[bare][i]))]),
);
const noiseFloor = summary(samples['lookup4 (bare, repeated)'].map((x, i) => x / samples['lookup4 (bare)'][i]));
const result = {
  database: { ...db.info, path: undefined },
  inputs: { addresses: N, rounds: ROUNDS, level: 'medium', found, interceptedAtMedium: intercepted },
  classifierBuildMs: round(classifierMs),
  nsPerAddress: ns,
  ratioClassifiedOverBare: ratios,
  noiseFloor: { ratioBareOverBare: noiseFloor, loadAverage1m: { before: round(loadBefore), after: round(loadAfter) }, cores: os.cpus().length },
  goals: {
    ratio4: { goal: '<= 1.3', value: ratios['lookup4 + verdict'].median },
    ratio16: { goal: '<= 1.3', value: ratios['lookupBytes 16-byte + verdict'].median },
  },
};
const out = writeResult('classify', result);
console.log(table(['arm', 'median ns/address', 'min', 'max'], Object.entries(ns).map(([k, v]) => [k, v.median, v.min, v.max])));
console.log();
console.log(
  table(
    ['ratio classified / bare', 'median', 'min', 'max', 'goal'],
    [
      ...Object.entries(ratios).map(([k, v]) => [k, v.median, v.min, v.max, '<= 1.3']),
      ['noise floor: bare / bare', noiseFloor.median, noiseFloor.min, noiseFloor.max, '(1.0)'],
    ],
  ),
);
console.log(`\n${found} of ${N} random addresses found, ${intercepted} intercepted at medium; classifier built in ${round(classifierMs)} ms`);
console.log(`load average (1 min) ${round(loadBefore)} → ${round(loadAfter)} on ${os.cpus().length} cores`);
console.log(`results: ${out} (sink ${sink % 7})`);
db.close();
