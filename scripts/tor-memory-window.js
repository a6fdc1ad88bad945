// How long the Tor feeds should remember exits (registry.ts keepDays), judged
// on the history of the bulk exit list alone: the data of one moment, with
// the exits of its last W days folded in as recent.ts keeps them, against the
// list of another moment (the reference).
//   - "older" rows: the reference is older than the data (a list someone
//     checks visitors against lags the publisher);
//   - "younger" rows: the reference is younger (exits that come back later);
//   - "kept": how many addresses the memory holds beside the newest list.
// Prints medians over the moments (docs/detection.md, Tor exits). A version
// stands for the list from its commit to the next one: the mirror commits a
// few times a day (the product refreshes hourly), so an exit listed only
// between two commits is not seen, and "last seen" is the commit's time.
//
//   node scripts/tor-memory-window.js <idleadmin/ThreatFeed git dir>
import { execFileSync } from 'node:child_process';

const [threatFeed] = process.argv.slice(2);
if (!threatFeed) throw new Error('usage: node scripts/tor-memory-window.js <ThreatFeed git dir>');
const FILE = 'tor-exit-nodes.list';
const DAY = 86_400_000;
const WINDOWS = [0, 7, 14, 30, 60];
const LAGS = [7, 14, 30];
// The data's moments start SKIP days after the first version, so that the
// longest window before them lies within the history, and follow every STEP
// days; each is paired with the reference `lag` days before or after it.
const SKIP = 61;
const STEP = 3;

const git = (...args) => execFileSync('git', ['--git-dir', threatFeed, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
const versions = git('log', '--format=%H %aI', '--', FILE).trim().split('\n')
  .map((line) => ({ commit: line.split(' ')[0], at: Date.parse(line.split(' ')[1]) }))
  .reverse()
  .map((v) => ({ ...v, exits: new Set(git('show', `${v.commit}:${FILE}`).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) }));
const first = versions[0].at;
const last = versions.at(-1).at;
if (last - first < SKIP * DAY) throw new Error(`${versions.length} versions span less than the ${SKIP} days the longest window needs`);

/** The newest version at or before `t`. */
const at = (t) => versions.findLast((v) => v.at <= t);
/** The data at `t` with every exit of the versions in the `days` before it. */
function data(t, days) {
  const exits = new Set(at(t).exits);
  for (const v of versions) if (v.at <= t && v.at >= t - days * DAY) for (const e of v.exits) exits.add(e);
  return { exits, kept: exits.size - at(t).exits.size };
}
const recall = (reference, exits) => [...reference].filter((e) => exits.has(e)).length / reference.size;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`${versions.length} versions, ${new Date(first).toISOString()} to ${new Date(last).toISOString()}`);
console.log(`| | ${WINDOWS.map((w) => (w ? `${w} days` : 'no memory')).join(' | ')} |`);
console.log(`| --- |${WINDOWS.map(() => ' --- |').join('')}`);
for (const [kind, sign] of [['older', 1], ['younger', -1]]) {
  for (const lag of LAGS) {
    const cells = WINDOWS.map((w) => {
      const rates = [];
      for (let t = first + SKIP * DAY; t <= last; t += STEP * DAY) {
        const reference = t - sign * lag * DAY;
        if (reference < first || reference > last) continue;
        rates.push(recall(at(reference).exits, data(t, w).exits));
      }
      return { rate: median(rates), n: rates.length };
    });
    console.log(`| reference ${kind} than the data by ${lag} days (${cells[0].n} moments) | ${cells.map((c) => c.rate.toFixed(3)).join(' | ')} |`);
  }
}
const kept = WINDOWS.map((w) => {
  const counts = [];
  for (let t = first + SKIP * DAY; t <= last; t += STEP * DAY) counts.push(data(t, w).kept);
  return median(counts);
});
console.log(`| addresses kept beside the newest list (median) | ${kept.join(' | ')} |`);
