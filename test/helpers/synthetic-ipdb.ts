// A tiny IP database for classifier tests: one IPv4 /24 per organization,
// written as a CSV in the package's format and compiled by the real builder
// (parseSources + buildDatabase), then opened from a temporary file by the
// real reader. Tests choose the organization names and ASNs, so each one
// exercises the classifier's rules on a name of its choice.
import { afterAll, beforeAll } from 'vitest';
import { IpDatabase } from '../../src/ipdb/database.js';
import { buildDatabase } from '../../src/ipdb/build.js';
import { parseSources } from '../../src/ipdb/sources.js';
import { Classifier, type CheckResult } from '../../src/quality/classifier.js';
import type { BuiltInLists, Level } from '../../src/quality/lists.js';
import { removeTemps, writeTemp } from './fixture.js';

export interface SyntheticOrg {
  asn: number;
  org: string;
}

export interface SyntheticDatabase {
  db: IpDatabase;
  /** An address inside the organization's range (the ".1" of its /24). */
  ipOf(org: SyntheticOrg): string;
  /** The organization's range as the database reports it. */
  rangeOf(org: SyntheticOrg): { start: string; end: string };
}

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * Builds and opens a database holding `orgs`: the i-th organization gets
 * 11.0.i.0/24 (i < 256), so everything outside 11.0.0.0/16 is not found.
 * The caller closes it (and calls fixture.removeTemps in afterAll).
 */
export function syntheticDatabase(orgs: readonly SyntheticOrg[]): SyntheticDatabase {
  if (orgs.length > 256) throw new Error('syntheticDatabase: at most 256 organizations');
  const csv = orgs.map((o, i) => `11.0.${i}.0,11.0.${i}.255,${o.asn},${quote(o.org)}`).join('\n');
  const parsed = parseSources([{ name: 'synthetic.csv', data: new TextEncoder().encode(`${csv}\n`) }]);
  const { bytes } = buildDatabase(parsed, { sourceName: 'synthetic.csv', dataVersion: 'synthetic-1', buildTime: new Date(0) });
  const db = IpDatabase.open(writeTemp(bytes, 'synthetic.trie'));
  const index = (o: SyntheticOrg) => {
    const i = orgs.indexOf(o);
    if (i < 0) throw new Error(`syntheticDatabase: ${o.org} is not in this database`);
    return i;
  };
  return {
    db,
    ipOf: (o) => `11.0.${index(o)}.1`,
    rangeOf: (o) => ({ start: `11.0.${index(o)}.0`, end: `11.0.${index(o)}.255` }),
  };
}

/**
 * For a test file: a database of these organization names (ASNs from
 * `firstAsn` up), built before its tests and removed after them, and the
 * classifier over it with `lists`. check(name, level) classifies an
 * address of that organization.
 */
export function classifierOverNames(names: readonly string[], firstAsn: number, lists: BuiltInLists): { check(name: string, level: Level): CheckResult } {
  const orgs = names.map((org, i) => ({ asn: firstAsn + i, org }));
  let synthetic: SyntheticDatabase | undefined;
  let classifier: Classifier;
  beforeAll(() => {
    synthetic = syntheticDatabase(orgs);
    classifier = new Classifier(synthetic.db, lists, lists.blacklist);
  });
  afterAll(() => {
    synthetic?.db.close();
    removeTemps();
  });
  return {
    check(name, level) {
      const org = orgs.find((o) => o.org === name);
      if (!org) throw new Error(`classifierOverNames: ${name} is not one of the names`);
      return classifier.check(synthetic!.ipOf(org), level)!;
    },
  };
}
