// A feed's version is the publisher's own text and GET /v1/ip/database shows
// it to every tenant (the hostile-publisher review of 2026-11-29: "Renew at
// https://... or call ..." would reach every account's console). Only a
// version that is a number or an ISO 8601 date and time is kept, as every
// publisher's is; anything else reads as no version, and the download's
// digest stands in for it. A text version does not refuse the feed, and one
// stored before the check is shown as `unknown`.
import { expect, it } from 'vitest';
import { parseFeed, shownVersion } from '../../../src/ipdb/feeds/parse.js';

const aws = (syncToken: string) => Buffer.from(JSON.stringify({ syncToken, prefixes: [{ ip_prefix: '3.5.0.0/16' }], ipv6_prefixes: [] }));
const google = (syncToken: string, creationTime: string) => Buffer.from(JSON.stringify({ syncToken, creationTime, prefixes: [{ ipv4Prefix: '8.8.8.0/24' }] }));
const onionoo = (published: string) => Buffer.from(JSON.stringify({ relays_published: published, relays: [{ flags: ['Exit'], or_addresses: ['1.2.3.4:9001'] }] }));

it("keeps every publisher's form of version", () => {
  expect(parseFeed('aws-json', aws('1787299542583'), 'aws').version).toBe('1787299542583');
  expect(parseFeed('google-json', google('', '2026-08-21T01:05:42.583377'), 'google').version).toBe('2026-08-21T01:05:42.583377');
  expect(parseFeed('onionoo-json', onionoo('2026-08-22 11:00:00'), 'tor-onionoo').version).toBe('2026-08-22 11:00:00');
  expect(parseFeed('aws-json', aws('2026-11-19T22:01:03.588Z'), 'aws').version).toBe('2026-11-19T22:01:03.588Z');
  expect(parseFeed('aws-json', aws('2026-11-19 22:01:03+01:00'), 'aws').version).toBe('2026-11-19 22:01:03+01:00');
});

it('reads a version of words, a link or markup as none, and still takes the data', () => {
  for (const text of ['Renew at https://evil.example/pay', 'call +1 555 0100', '1 800 555 0199', '1-800-555-0199', '+1 555 0100', '<b>1</b>', 'v1', ' 1787299542583', '1787299542583\n', '']) {
    const parsed = parseFeed('aws-json', aws(text), 'aws');
    expect(parsed.version, JSON.stringify(text)).toBeNull();
    expect(parsed.ranges?.v4).toHaveLength(1);
  }
  // A text syncToken falls back to creationTime, as a missing one does.
  expect(parseFeed('google-json', google('see our site', '2026-08-21T01:05:42.583377'), 'google').version).toBe('2026-08-21T01:05:42.583377');
  expect(parseFeed('onionoo-json', onionoo('published today!'), 'tor-onionoo').version).toBeNull();
});

it('shows a version stored before the check as unknown, part by part', () => {
  expect(shownVersion('1787299542583 | 2026-08-21T01:05:42.583377')).toBe('1787299542583 | 2026-08-21T01:05:42.583377');
  expect(shownVersion('snapshot 2026-08-22')).toBe('snapshot 2026-08-22');
  expect(shownVersion('3fa2b1c0d9e8')).toBe('3fa2b1c0d9e8');
  expect(shownVersion('Renew at https://evil.example/pay | 1787299542583')).toBe('unknown | 1787299542583');
  expect(shownVersion('call 1-800-555-0199')).toBe('unknown');
  expect(shownVersion(null)).toBeNull();
});
