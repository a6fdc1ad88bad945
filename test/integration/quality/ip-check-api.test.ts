// GET and POST /v1/ip/check on the real server: the contract's result object
// (§6) field by field, the IPv4-mapped form, the level parameter, and the
// 400s that name the offending parameter or field.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpDatabase } from '../../../src/ipdb/database.js';
import type { Response } from '../../helpers/client.js';
import { embeddedPackageVersion, ensureCachedDatabase, ROOT } from '../../helpers/ipdb-cache.js';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

interface Golden {
  ip: string;
  asn: number | null;
  org: string | null;
  expect: { category: string; low: boolean; medium: boolean; high: boolean };
}
const golden = JSON.parse(readFileSync(path.join(ROOT, 'src', 'quality', 'lists', 'golden.json'), 'utf8')) as Golden[];

let server: TestServer;
let builtAt: string;

beforeAll(async () => {
  const db = IpDatabase.open(ensureCachedDatabase());
  builtAt = db.info.builtAt;
  db.close();
  server = await startServer({ env: NO_RATE_LIMIT });
});

afterAll(async () => {
  await server?.close();
});

const get = (query: string) => api(server, 'GET', `/v1/ip/check${query}`);
const post = (body: unknown) => api(server, 'POST', '/v1/ip/check', body);

function expect400(r: Response, field: string): void {
  expect(r.status, r.body).toBe(400);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(r.json).toEqual({ error: expect.any(String), code: 'invalid_parameter', field });
  expect(r.json.error).toContain(field);
}

describe('GET /v1/ip/check', () => {
  it('answers 8.8.8.8 with the exact result object', async () => {
    const r = await get('?ip=8.8.8.8');
    expect(r.status, r.body).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(r.json)).toEqual(['ip', 'version', 'found', 'asn', 'organization', 'range', 'category', 'signals', 'intercept', 'level', 'intercepted', 'database']);
    expect(r.json).toStrictEqual({
      ip: '8.8.8.8',
      version: 4,
      found: true,
      asn: 15169,
      organization: 'Google LLC',
      range: { start: '8.8.8.0', end: '8.8.8.255' },
      category: 'datacenter',
      signals: { asn_blacklist: true, org_keyword: null, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null },
      intercept: { low: true, medium: true, high: true },
      level: 'medium',
      intercepted: true,
      database: { version: embeddedPackageVersion(), built_at: builtAt },
    });
    expect(new Date(r.json.database.built_at).toISOString()).toBe(r.json.database.built_at);
  });

  it('answers ::ffff:8.8.8.8 like 8.8.8.8, echoing the input, version 4', async () => {
    const plain = await get('?ip=8.8.8.8');
    const mapped = await get(`?ip=${encodeURIComponent('::ffff:8.8.8.8')}`);
    expect(mapped.status, mapped.body).toBe(200);
    expect(mapped.json).toStrictEqual({ ...plain.json, ip: '::ffff:8.8.8.8' });
    expect(mapped.json.version).toBe(4);
  });

  it('answers an IPv6 address with version 6 and an IPv6 range', async () => {
    const r = await get(`?ip=${encodeURIComponent('2001:4860::1')}`);
    expect(r.status, r.body).toBe(200);
    expect(r.json).toMatchObject({ ip: '2001:4860::1', version: 6, found: true, asn: 15169, category: 'datacenter' });
    expect(r.json.range.start).toMatch(/^2001:4860:/);
  });

  it('answers an address outside the database: found false, unknown, never intercepted', async () => {
    const r = await get('?ip=10.0.0.1&level=high');
    expect(r.status, r.body).toBe(200);
    expect(r.json).toStrictEqual({
      ip: '10.0.0.1',
      version: 4,
      found: false,
      asn: null,
      organization: null,
      range: null,
      category: 'unknown',
      signals: { asn_blacklist: false, org_keyword: null, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null },
      intercept: { low: false, medium: false, high: false },
      level: 'high',
      intercepted: false,
      database: { version: embeddedPackageVersion(), built_at: builtAt },
    });
  });

  // Cloudflare 1.1.1.1 is on the blacklist at level high only.
  it.each([
    ['off', false],
    ['low', false],
    ['medium', false],
    ['high', true],
  ] as const)('level=%s decides 1.1.1.1: intercepted %s', async (level, intercepted) => {
    const r = await get(`?ip=1.1.1.1&level=${level}`);
    expect(r.status, r.body).toBe(200);
    expect(r.json.level).toBe(level);
    expect(r.json.intercepted).toBe(intercepted);
    expect(r.json.intercept).toEqual({ low: false, medium: false, high: true });
  });

  it('level=off never intercepts, even a blacklisted ASN', async () => {
    const r = await get('?ip=8.8.8.8&level=off');
    expect(r.json).toMatchObject({ level: 'off', intercepted: false, intercept: { low: true, medium: true, high: true } });
  });

  it.each(['bogus', 'HIGH', '3', 'medium '])('level=%j → 400 naming level', async (level) => {
    expect400(await get(`?ip=8.8.8.8&level=${encodeURIComponent(level)}`), 'level');
  });

  it.each(['', '?level=low'])('no ip (%j) → 400 naming ip', async (query) => {
    expect400(await get(query), 'ip');
  });

  it.each(['1.2.3', '::g', 'a'.repeat(65), '', '1.2.3.256', '01.2.3.4', '8.8.8.8/24', 'example.com', '1:2:3:4:5:6:7:8:9', `1.2.3.4${' '.repeat(60)}x`, ' 8.8.8.8', '8.8.8.8 '])(
    'ip=%j → 400 naming ip',
    async (ip) => {
      expect400(await get(`?ip=${encodeURIComponent(ip)}`), 'ip');
    },
  );

  it.each(['foo', 'ips', 'IP'])('an unknown parameter (%s) → 400 naming it', async (name) => {
    expect400(await get(`?ip=8.8.8.8&${name}=1`), name);
  });
});

describe('POST /v1/ip/check', () => {
  const addresses = golden.slice(0, 50);

  it('checks 50 addresses, one result per address, in order', async () => {
    expect(addresses).toHaveLength(50);
    const r = await post({ ips: addresses.map((g) => g.ip) });
    expect(r.status, r.body).toBe(200);
    expect(Object.keys(r.json)).toEqual(['results']);
    expect(r.json.results).toHaveLength(50);
    addresses.forEach((g, i) => {
      const res = r.json.results[i];
      expect(res.ip).toBe(g.ip);
      expect(res.asn).toBe(g.asn);
      expect(res.organization).toBe(g.org);
      expect(res.category).toBe(g.expect.category);
      expect(res.intercept).toEqual({ low: g.expect.low, medium: g.expect.medium, high: g.expect.high });
      expect(res.level).toBe('medium');
      expect(res.intercepted).toBe(g.expect.medium);
    });
  });

  it('gives each result the same object as GET', async () => {
    const [one] = (await post({ ips: ['::ffff:8.8.8.8'] })).json.results;
    expect(one).toStrictEqual((await get(`?ip=${encodeURIComponent('::ffff:8.8.8.8')}`)).json);
  });

  it('takes a level for the whole batch', async () => {
    const r = await post({ ips: ['1.1.1.1', '8.8.8.8'], level: 'low' });
    expect(r.status, r.body).toBe(200);
    expect(r.json.results.map((x: { level: string; intercepted: boolean }) => [x.level, x.intercepted])).toEqual([
      ['low', false],
      ['low', true],
    ]);
  });

  it.each(['max', null, 2])('an invalid level (%j) → 400 naming level', async (level) => {
    expect400(await post({ ips: ['8.8.8.8'], level }), 'level');
  });

  it('51 addresses → 400 naming ips', async () => {
    expect400(await post({ ips: Array.from({ length: 51 }, () => '8.8.8.8') }), 'ips');
  });

  it('an empty array → 400 naming ips', async () => {
    expect400(await post({ ips: [] }), 'ips');
  });

  it.each([['8.8.8.8'], [{ 0: '8.8.8.8' }], [null], [42]])('ips = %j (not an array) → 400 naming ips', async (ips) => {
    expect400(await post({ ips }), 'ips');
  });

  it('no ips at all → 400 naming ips', async () => {
    expect400(await post({}), 'ips');
  });

  it('an invalid entry at index 3 → 400 naming ips[3]', async () => {
    expect400(await post({ ips: ['8.8.8.8', '1.1.1.1', '::1', '1.2.3', '9.9.9.9'] }), 'ips[3]');
  });

  it.each([[42], [null], [['8.8.8.8']], [{ ip: '8.8.8.8' }], [true], ['']])('a non-string or empty entry (%j) at index 1 → 400 naming ips[1]', async (entry) => {
    expect400(await post({ ips: ['8.8.8.8', entry] }), 'ips[1]');
  });

  it('an unknown body field → 400 naming it', async () => {
    expect400(await post({ ips: ['8.8.8.8'], ip: '1.1.1.1' }), 'ip');
    expect400(await post({ ips: ['8.8.8.8'], extra: true }), 'extra');
  });
});
