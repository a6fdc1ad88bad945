// Makes the recent files shipped with the Tor snapshots
// (feeds/snapshots/tor-exit-nodes.recent.list, tor-onionoo-exits.recent.list):
// what the product's own retention (src/ipdb/feeds/recent.ts) holds at the
// snapshot's moment after refreshing from every version of the lists that the
// mirrors kept in the 30 days before it (the feeds' keepDays), in time order.
//
//   node scripts/tor-recent-snapshots.js <idleadmin/ThreatFeed git dir> <ValdikSS/tor-onionoo-mirror git dir>
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

const [threatFeed, onionooMirror] = process.argv.slice(2);
if (!threatFeed || !onionooMirror) throw new Error('usage: node scripts/tor-recent-snapshots.js <ThreatFeed git dir> <tor-onionoo-mirror git dir>');
const snapshots = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../feeds/snapshots');
const BULK = 'tor-exit-nodes.list';
const RELAYS = 'details-running-relays-fingerprint-address-only.json';
// The shipped snapshots' commits (feeds/README.md).
const BULK_AT = '93496326e04d';
const RELAYS_AT = '7d772bc58950';
/** Both Tor feeds keep the same number of days (registry.ts). */
const KEEP_DAYS = FEEDS.find((f) => f.name === 'tor').keepDays;
const DAY_MS = 86_400_000;

const git = (dir, ...args) => execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
const when = (dir, commit) => Date.parse(git(dir, 'show', '-s', '--format=%aI', commit).trim());
/** The versions of `file` in the KEEP_DAYS before `commit`, oldest first, ending with `commit`'s. */
function versionsBefore(dir, file, commit) {
  const end = when(dir, commit);
  return git(dir, 'log', '--format=%H %aI', commit, '--', file).trim().split('\n')
    .map((line) => ({ commit: line.split(' ')[0], at: Date.parse(line.split(' ')[1]) }))
    .filter((v) => v.at >= end - KEEP_DAYS * DAY_MS)
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
  const kept = previous.recent ? readFileSync(previous.recent, 'utf8') : '';
  writeFileSync(path.join(snapshots, out), kept);
  console.log(`${out}: ${versions.length} versions, ${kept.split('\n').filter((l) => l && !l.startsWith('#')).length} addresses kept`);
}

const bulks = versionsBefore(threatFeed, BULK, BULK_AT).map((v) => ({ ...v, text: git(threatFeed, 'show', `${v.commit}:${BULK}`) }));
replay('tor', 'cidr-lines', bulks, 'tor-exit-nodes.recent.list');

// The onionoo extract of each version, made as the shipped one was
// (feeds/README.md): the relays whose IPv4 OR address is in the bulk list
// nearest in time, the lines kept as they were.
const extract = (document, bulk) => {
  const exits = new Set(bulk.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.trim()));
  const lines = document.split('\n');
  const relays = lines.filter((l) => l.startsWith('{"fingerprint"') && /"or_addresses":\["([0-9.]+):/.test(l) && exits.has(/"or_addresses":\["([0-9.]+):/.exec(l)[1]));
  const head = lines.slice(0, lines.indexOf('"relays":[') + 1);
  return `${head.join('\n')}\n${relays.map((l) => l.replace(/,$/, '')).join(',\n')}\n],\n"bridges":[\n]}\n`;
};
const nearest = (at) => bulks.reduce((a, b) => (Math.abs(b.at - at) < Math.abs(a.at - at) ? b : a));
const documents = versionsBefore(onionooMirror, RELAYS, RELAYS_AT).map((v) => ({ ...v, text: extract(git(onionooMirror, 'show', `${v.commit}:${RELAYS}`), nearest(v.at).text) }));
replay('tor-onionoo', 'onionoo-json', documents, 'tor-onionoo-exits.recent.list');
rmSync(work, { recursive: true, force: true });
