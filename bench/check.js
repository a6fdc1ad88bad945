// npm run bench:check: a fresh run compared with a reference. Each guarded
// figure may move against us by no more than its measured noise: the larger
// of 10% and the spread (max - min) / median of the reference samples.
// Ratios to a baseline measured in the same run are guarded rather than raw
// speeds where they exist, but some figures are raw (ns per lookup, MB per
// thread), and even ratios shift with the processor (a system call costs
// more on one than another), so a reference means something only on the
// machine that measured it. Not part of npm test.
//
//   node bench/check.js --against <commit> [scenario ...]
//       the reference is that commit, measured here and now: checked out into
//       a temporary worktree (with this checkout's node_modules linked in),
//       built, its benchmarks run, then this checkout's; the scripts in
//       OUR_SCRIPTS are this checkout's in both runs (see there)
//   node bench/check.js [--no-run] [scenario ...]
//       the committed reference (bench/reference/*.json); refused when it was
//       measured on another processor model
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, resultsDir, table } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));

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
const againstAt = args.indexOf('--against');
const against = againstAt >= 0 ? args[againstAt + 1] : null;
if (againstAt >= 0 && !against) throw new Error('--against needs a commit');
const run = !args.includes('--no-run');
const only = args.filter((a, i) => !a.startsWith('--') && i !== againstAt + 1);
const scenarios = [...new Set(GUARDED.map((g) => g[0]))].filter((s) => only.length === 0 || only.includes(s));

/**
 * Benchmarks whose way of measuring changed after the reference commits
 * that matter, and that drive only what every version has (the CLI,
 * /healthz, /proc): the reference is measured by this checkout's script, so
 * both sides are read the same way. startup.js reads memory once it has
 * settled (its header says why); older scripts read it 1.5 s after start.
 */
const OUR_SCRIPTS = ['startup.js'];

/** Builds `commit` in a temporary worktree, runs its benchmarks of `scenarios` there, and returns its results directory. */
function measureReference(commit) {
  const root = path.join(here, '..');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-reference-'));
  const sh = (cmd, argv, cwd) => execFileSync(cmd, argv, { cwd, stdio: 'inherit' });
  rmSync(dir, { recursive: true });
  sh('git', ['worktree', 'add', '--detach', dir, commit], root);
  try {
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    // Through npx: npm's configuration (nodedir: the local headers) reaches node-gyp.
    sh('npx', ['--no-install', 'node-gyp', 'rebuild'], dir);
    sh(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], dir);
    for (const script of OUR_SCRIPTS) cpSync(path.join(here, script), path.join(dir, 'bench', script));
    const theirs = scenarios.filter((s) => existsSync(path.join(dir, 'bench', `${s}.js`)));
    sh(process.execPath, [path.join(dir, 'bench/run.js'), ...theirs], dir);
    const kept = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-reference-results-'));
    cpSync(path.join(dir, 'bench/results'), kept, { recursive: true });
    return kept;
  } finally {
    sh('git', ['worktree', 'remove', '--force', dir], root);
  }
}

const referenceDir = against ? measureReference(against) : path.join(here, 'reference');
if (run) execFileSync(process.execPath, [path.join(here, 'run.js'), ...scenarios], { stdio: 'inherit' });
const thisCpu = machine().cpu;

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
  const refResult = JSON.parse(readFileSync(refFile, 'utf8'));
  if (refResult.machine?.cpu !== thisCpu) {
    rows.push([scenario, key, '-', '-', `reference from "${refResult.machine?.cpu}", this is "${thisCpu}"`, 'other machine']);
    failed++;
    continue;
  }
  const ref = at(refResult, key);
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
console.log(against ? `reference: ${against}, measured here in this run (${referenceDir})` : `reference: ${referenceDir}`);
console.log(table(['scenario', 'figure', 'reference', 'now', 'change', 'verdict'], rows));
if (failed > 0) {
  console.error(`\n${failed} figure(s) slower than the reference beyond the noise, or measured on another machine (use --against <commit>)`);
  process.exitCode = 1;
}
