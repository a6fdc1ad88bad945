// A feed's memory (feeds/recent.ts: the exits its data held in the last week
// and the newest download lacks) spares the carriers, as `hosting`
// aggregates do: a relay that left a subscriber line's address days ago may
// have handed it to the next subscriber. The current list still applies
// there, and the memory still applies everywhere else, on transit networks
// (high-only, which `hosting` aggregates spare) too.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IpDatabase } from '../../../src/ipdb/database.js';
import type { FeedFile } from '../../../src/ipdb/feeds/state.js';
import { buildFromFiles, installDatabaseFile } from '../../../src/ipdb/files.js';

let dir: string;
let db: IpDatabase;

// 64530 is carrier-named; 701 is a carrier by the built-in list only (here
// under a name with no carrier word); 64533 stands for a transit network.
const ASNS = `\
11.1.0.0,11.1.0.255,64530,Kiwi Mobile Limited
11.2.0.0,11.2.0.255,701,Example Networks
11.3.0.0,11.3.0.255,64532,Gamma Hosting
11.4.0.0,11.4.0.255,64533,Example Transit
`;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-memory-carriers-'));
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const seen = '2026-08-20T10:00:00.000Z';
  const tor: FeedFile = {
    name: 'tor', label: 'tor', format: 'cidr-lines', version: 'v1', fetchedAt: 0,
    files: [file('tor.txt', '11.1.0.9\n11.2.0.9\n')],
    recent: file('tor.recent', `# tor: remembered\n11.1.0.10/32 ${seen}\n11.2.0.10/32 ${seen}\n11.3.0.10/32 ${seen}\n11.4.0.10/32 ${seen}\n`),
  };
  const { bytes } = buildFromFiles([file('asn.csv', ASNS)], { sourceName: 'asn.csv', dataVersion: 'test', feeds: [tor], excludeAsns: [64533] });
  installDatabaseFile(bytes, path.join(dir, 'test.trie'));
  db = IpDatabase.open(path.join(dir, 'test.trie'));
});
afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const feedAt = (ip: string) => db.rangeFeed(db.lookupText(ip))?.name ?? null;

it('leaves a remembered exit on a carrier out, by name and by the carrier list', () => {
  expect(feedAt('11.1.0.10')).toBeNull();
  expect(feedAt('11.2.0.10')).toBeNull();
  expect(db.asn(db.lookupText('11.1.0.10'))).toBe(64530);
});

it('keeps the current list on carriers and the memory elsewhere', () => {
  expect(feedAt('11.1.0.9')).toBe('tor');
  expect(feedAt('11.2.0.9')).toBe('tor');
  expect(feedAt('11.3.0.10')).toBe('tor');
  expect(feedAt('11.4.0.10')).toBe('tor');
});
