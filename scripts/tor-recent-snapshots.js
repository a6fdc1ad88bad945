// Makes the recent files shipped with the Tor snapshots
// (feeds/snapshots/tor-exit-nodes.recent.list, tor-onionoo-exits.recent.list):
// what the product's own retention (src/ipdb/feeds/recent.ts) holds at the
// snapshot's moment after refreshing from every version of the lists that the
// mirrors kept in the feeds' keepDays before it, in time order, from the day
// after the evaluation's Tor reference list (eval/lists/tor-exits.txt, taken
// on 2026-08-15) on: no version of the reference's day is replayed.
//
//   node scripts/tor-recent-snapshots.js <idleadmin/ThreatFeed git dir> <alireza-rezaee/tor-nodes git dir>
//
// The git directories are clones of those repositories (feeds/README.md names
// the snapshot commits). Needs dist/ (npm run build).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFeed } from '../dist/ipdb/feeds/parse.js';
import { recentAfter } from '../dist/ipdb/feeds/recent.js';
import { FEEDS } from '../dist/ipdb/feeds/registry.js';

const [threatFeed, torNodes] = process.argv.slice(2);
if (!threatFeed || !torNodes) throw new Error('usage: node scripts/tor-recent-snapshots.js <ThreatFeed git dir> <tor-nodes git dir>');
const snapshots = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../feeds/snapshots');
const BULK = 'tor-exit-nodes.list';
const EXITS = 'latest.exits.csv';
// The shipped snapshots' commits (feeds/README.md).
const BULK_AT = '93496326e04d';
const EXITS_AT = 'b02ed492c392';
/** The day after the reference list's: the first version replayed is of this day or later. */
const NOT_BEFORE = Date.parse('2026-08-16T00:00:00Z');
/** Both Tor feeds keep the same number of days (registry.ts). */
const KEEP_DAYS = FEEDS.find((f) => f.name === 'tor').keepDays;
const DAY_MS = 86_400_000;

const git = (dir, ...args) => execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
const when = (dir, commit) => Date.parse(git(dir, 'show', '-s', '--format=%aI', commit).trim());
/** The versions of `file` in the KEEP_DAYS before `commit` and from NOT_BEFORE on, oldest first, ending with `commit`'s. */
function versionsBefore(dir, file, commit) {
  const end = when(dir, commit);
  return git(dir, 'log', '--format=%H %aI', commit, '--', file).trim().split('\n')
    .map((line) => ({ commit: line.split(' ')[0], at: Date.parse(line.split(' ')[1]) }))
    .filter((v) => v.at >= Math.max(end - KEEP_DAYS * DAY_MS, NOT_BEFORE))
    .reverse();
}

const work = mkdtempSync(path.join(os.tmpdir(), 'sg-tor-recent-'));
/** Runs the retention over `versions` (each with its file's text) as hourly refreshes would, and writes the last recent file. */
function replay(name, format, versions, out) {
  let previous = null;
  versions.forEach((v, i) => {
    const file = path.join(work, `${name}.${i}`);
    writeFileSync(file, v.text);
    const ranges = parseFeed(format, readFileSync(file), name).ranges;
    let recent = null;
    if (previous) {
      const { text, entries } = recentAfter(previous, ranges, v.at, KEEP_DAYS, name);
      if (entries > 0) writeFileSync((recent = path.join(work, `${name}.recent.${i}`)), text);
    }
    previous = { files: [file], format, seenAt: v.at, recent };
  });
  // The build reads an empty memory as unreadable; a snapshot with nothing to remember has no recent file.
  if (!previous.recent) throw new Error(`${out}: nothing is remembered; remove the feed's snapshot.recent in src/ipdb/feeds/registry.ts instead`);
  const kept = readFileSync(previous.recent, 'utf8');
  writeFileSync(path.join(snapshots, out), kept);
  console.log(`${out}: ${versions.length} versions, ${kept.split('\n').filter((l) => l && !l.startsWith('#')).length} addresses kept`);
}

const bulks = versionsBefore(threatFeed, BULK, BULK_AT).map((v) => ({ ...v, text: git(threatFeed, 'show', `${v.commit}:${BULK}`) }));
replay('tor', 'cidr-lines', bulks, 'tor-exit-nodes.recent.list');

// tor-nodes writes Onionoo's running Exit-flagged relays as `fingerprint, ipaddr, port`
// lines under one header; each version becomes the shipped snapshot's
// cidr-lines form (the ipaddr column, each address once, in the file's order).
const addresses = (csv) => [...new Set(csv.split('\n').slice(1).filter(Boolean).map((l) => l.split(', ')[1]))].join('\n') + '\n';
const exits = versionsBefore(torNodes, EXITS, EXITS_AT).map((v) => ({ ...v, text: addresses(git(torNodes, 'show', `${v.commit}:${EXITS}`)) }));
replay('tor-onionoo', 'cidr-lines', exits, 'tor-onionoo-exits.recent.list');
rmSync(work, { recursive: true, force: true });
