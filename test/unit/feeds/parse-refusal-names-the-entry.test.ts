// A refused or malformed entry is quoted as it was written: a JSON entry
// whose address key is misspelt was quoted as "undefined", and an Onionoo
// relay nested 20,000 deep made the quoting itself fail ("Maximum call stack
// size exceeded", without the feed's name). A publisher's version longer than
// 100 characters refuses the file: a 40 MB syncToken was shown by every
// GET /v1/ip/database (the files review of 2026-11-27).
import { expect, it } from 'vitest';
import { parseFeed } from '../../../src/ipdb/feeds/parse.js';

it('quotes a JSON entry without its address key as the entry', () => {
  const body = { syncToken: '1', prefixes: [{ ipv4Prefix: '8.8.8.0/24' }, { ipv4prefix: '8.8.4.0/24' }] };
  expect(() => parseFeed('google-json', Buffer.from(JSON.stringify(body)), 'googlebot')).toThrow(/googlebot: 1 of 2 entries are malformed \(e\.g\. “\{"ipv4prefix":"8\.8\.4\.0\/24"\}”\)/);
});

it('quotes a relay that is not an object, and names the feed of one nested 20,000 deep', () => {
  const exit = JSON.stringify({ flags: ['Exit'], or_addresses: ['1.2.3.4:9001'] });
  const doc = (relay: string) => Buffer.from(`{"relays_published":"2026-08-22 12:00:00","relays":[${exit},${relay}]}`);
  expect(() => parseFeed('onionoo-json', doc(`${'['.repeat(10)}${']'.repeat(10)}`), 'tor-onionoo')).toThrow(/tor-onionoo: 1 of 2 entries are malformed \(e\.g\. “\[\[\[\[\[\[\[\[\[\[\]/);
  expect(() => parseFeed('onionoo-json', doc(`${'['.repeat(20_000)}${']'.repeat(20_000)}`), 'tor-onionoo')).toThrow(/tor-onionoo nests JSON deeper than 16 levels/);
});

it('refuses a version longer than 100 characters, naming its key', () => {
  const body = { syncToken: '7'.repeat(101), prefixes: [{ ip_prefix: '3.5.0.0/16' }], ipv6_prefixes: [] };
  expect(() => parseFeed('aws-json', Buffer.from(JSON.stringify(body)), 'aws')).toThrow(/aws: its version \("syncToken"\) is 101 characters long, at most 100/);
  expect(parseFeed('aws-json', Buffer.from(JSON.stringify({ ...body, syncToken: '7'.repeat(100) })), 'aws').version).toHaveLength(100);
});
