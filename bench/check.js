// npm run bench:check: a fresh run compared with the committed reference
// results (bench/reference/*.json). Each guarded figure may move against us
// by no more than its measured noise: the larger of 10% and the spread
// (max - min) / median of the reference samples. Ratios to a baseline measured
// in the same run are guarded rather than raw speeds where they exist, so a
// faster or slower machine does not trip the guard. Not part of npm test.
//   node bench/check.js [--no-run] [scenario ...]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir, table } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const referenceDir = path.join(here, 'reference');

// [scenario, path to a {median, min, max} summary, direction: 'lower' or 'higher' is better]
const GUARDED = [
  ['lookup', 'speedupOverBinarySearch', 'higher'],
  ['lookup', 'nsPerLookup.ipv4 trie (JS walk, uint32)', 'lower'],
  ['lookup', 'nsPerLookup.ipv6 trie (JS walk, hot buffer)', 'lower'],
  ['lookup', 'nsPerLookup.ipv6 batch (C++, per address)', 'lower'],
  ['classify', 'ratioClassifiedOverBare.lookup4 + verdict', 'lower'],
  ['server', 'cpuRatio', 'lower'],
  ['redirect', 'cpuRatio', 'lower'],
  ['redirect', 'vsNodeHttps.rps', 'higher'],
  ['ip-check', 'cpuRatioSingleVsBare', 'lower'],
  ['startup', 'startupMs.threads1', 'lower'],
  ['startup', 'secondThreadMB', 'lower'],
];

const args = process.argv.slice(2);
const run = !args.includes('--no-run');
const only = args.filter((a) => !a.startsWith('--'));
const scenarios = [...new Set(GUARDED.map((g) => g[0]))].filter((s) => only.length === 0 || only.includes(s));
if (run) execFileSync(process.execPath, [path.join(here, 'run.js'), ...scenarios], { stdio: 'inherit' });

const at = (obj, dotted) => {
  // Keys may contain dots inside their names ("ipv4 trie (JS walk, uint32)"): try the longest match first.
  let cur = obj;
  let rest = dotted;
  while (rest) {
    if (cur == null) return undefined;
    const keys = Object.keys(cur).filter((k) => rest === k || rest.startsWith(`${k}.`)).sort((a, b) => b.length - a.length);
    if (keys.length === 0) return undefined;
    cur = cur[keys[0]];
    rest = rest.slice(keys[0].length + 1);
  }
  return cur;
};

const rows = [];
let failed = 0;
for (const [scenario, key, better] of GUARDED) {
  if (!scenarios.includes(scenario)) continue;
  const refFile = path.join(referenceDir, `${scenario}.json`);
  const newFile = path.join(resultsDir, `${scenario}.json`);
  if (!existsSync(refFile) || !existsSync(newFile)) {
    rows.push([scenario, key, '-', '-', '-', 'missing']);
    continue;
  }
  const ref = at(JSON.parse(readFileSync(refFile, 'utf8')), key);
  const now = at(JSON.parse(readFileSync(newFile, 'utf8')), key);
  if (!ref?.median || !now?.median) {
    rows.push([scenario, key, '-', '-', '-', 'missing']);
    continue;
  }
  const noise = Math.max(0.1, (ref.max - ref.min) / ref.median);
  const change = (now.median - ref.median) / ref.median;
  const worse = better === 'lower' ? change > noise : -change > noise;
  if (worse) failed++;
  rows.push([scenario, key, ref.median, now.median, `${(change * 100).toFixed(1)}% (noise ${(noise * 100).toFixed(0)}%)`, worse ? 'SLOWER' : 'ok']);
}
console.log(table(['scenario', 'figure', 'reference', 'now', 'change', 'verdict'], rows));
if (failed > 0) {
  console.error(`\n${failed} figure(s) slower than the reference beyond the noise`);
  process.exitCode = 1;
}
