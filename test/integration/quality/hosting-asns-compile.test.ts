// scripts/compile-hosting-asns.js re-makes src/quality/lists/hosting-asns.csv
// from the upstream lists: run on the snapshots in feeds/asn-lists/ it gives
// the shipped file byte for byte, and the exclusions hold for new upstream
// data: a carrier or a blacklisted ASN that a list adds is left out, a held
// name (a carrier word) needs a "keep" in the review file.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTemps, tempDir } from '../../helpers/fixture.js';
import { ROOT } from '../../helpers/ipdb-cache.js';

const SCRIPT = path.join(ROOT, 'scripts', 'compile-hosting-asns.js');
const SNAP = path.join(ROOT, 'feeds', 'asn-lists');

afterAll(() => removeTemps());

/** The CSV the script writes to stdout (its report goes to stderr). */
function run(args: string[]): { out: string } {
  const out = execFileSync(process.execPath, [SCRIPT, ...args, '--out', '-'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
  return { out };
}

const rowsOf = (csv: string) => new Map(csv.trim().split('\n').slice(1).map((l) => [Number(l.split(',')[0]), l]));

describe('compile-hosting-asns.js', () => {
  it('compiles the shipped snapshots into the shipped file, byte for byte (--check)', () => {
    const report = execFileSync(process.execPath, [SCRIPT, '--check'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(report).toBe('');
    const { out } = run([]);
    expect(out).toBe(readFileSync(path.join(ROOT, 'src', 'quality', 'lists', 'hosting-asns.csv'), 'utf8'));
  }, 60_000);

  it('leaves out a carrier and a blacklisted ASN that an upstream list adds, and holds a carrier-word name without a review decision', () => {
    const dir = tempDir();
    const brianhama = path.join(dir, 'bad-asn-list.csv');
    // Comcast (a listed carrier), Amazon (blacklisted), a new hoster, and a
    // new name with a carrier word and no review decision.
    writeFileSync(brianhama, `${readFileSync(path.join(SNAP, 'brianhama-bad-asn-list.csv'), 'utf8').trimEnd()}\n7922,"COMCAST, US"\n16509,"AMAZON, US"\n4200000001,"Example New Hosting, NL"\n4200000002,"Example Telecom, NL"\n`);
    const args = ['--brianhama', brianhama, '--x4b-dc', path.join(SNAP, 'x4bnet-datacenter-ASN.txt'), '--oxl-isp', path.join(SNAP, 'oxl-kind_isp.csv')];
    const { out } = run(args);
    const rows = rowsOf(out);
    expect(rows.has(7922)).toBe(false);
    expect(rows.has(16509)).toBe(false);
    expect(rows.get(4200000001)).toBe('4200000001,"Example New Hosting, NL",hosting,brianhama');
    expect(rows.has(4200000002)).toBe(false);
  }, 60_000);

  it('keeps a held hoster only with a "keep" in the review file', () => {
    const dir = tempDir();
    const emptyReview = path.join(dir, 'review.csv');
    writeFileSync(emptyReview, 'asn,decision,category,name,reason\n');
    const withReview = rowsOf(run([]).out);
    const withoutReview = rowsOf(run(['--review', emptyReview, ...Object.entries({
      brianhama: 'brianhama-bad-asn-list.csv',
      'x4b-dc': 'x4bnet-datacenter-ASN.txt',
      'x4b-vpn': 'x4bnet-vpn-ASN.txt',
      'oxl-hosting': 'oxl-kind_hosting.csv',
      'oxl-vpn': 'oxl-kind_vpn.csv',
      'oxl-isp': 'oxl-kind_isp.csv',
      'oxl-education': 'oxl-kind_education.csv',
    }).flatMap(([id, f]) => [`--${id}`, path.join(SNAP, f)])]).out);
    // PowerHost Telecom: the carrier word "telecom" holds it; the review keeps it.
    expect(withReview.has(263237)).toBe(true);
    expect(withoutReview.has(263237)).toBe(false);
    // SURF: nothing holds it automatically; the review drops it.
    expect(withReview.has(1101)).toBe(false);
    expect(withoutReview.has(1101)).toBe(true);
  }, 60_000);
});
