// GET and POST /v1/ip/check against docs/openapi.yaml: one result for each
// kind of address (data center, IPv4-mapped, whitelisted carrier, private,
// IPv6), a batch in order, and 400 naming the parameter or the element.
//
// One server for the file, on the test database; the tests only read.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callOn, type CallOptions, expectReply } from '../../helpers/openapi.js';
import { startServer, type TestServer } from '../../helpers/server.js';

// Classified by the test database (src/quality/lists/golden.json): Google,
// a blacklisted ASN; AT&T, a listed carrier; Cloud Telecom, whose "cloud"
// keyword the carrier word "telecom" cancels; a private address, not found.
const DATACENTER = '8.8.8.8';
const CARRIER = '12.0.0.1';
const WHITELISTED = '189.127.128.1';
const PRIVATE = '10.0.0.1';

let srv: TestServer;
const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

beforeAll(async () => {
  srv = await startServer();
});

afterAll(async () => {
  await srv?.close();
});

it('GET /v1/ip/check: 200 for each kind of address; 400 naming the parameter', async () => {
  const one = async (query: string) => {
    const reply = await on('GET', `/v1/ip/check?${query}`);
    expectReply(reply, '/v1/ip/check', 'GET', 200);
    return reply.json;
  };
  expect(await one(`ip=${DATACENTER}`)).toMatchObject({ found: true, asn: 15169, category: 'datacenter', level: 'medium', intercepted: true, signals: { asn_blacklist: true } });
  expect(await one(`ip=::ffff:${DATACENTER}&level=low`)).toMatchObject({ ip: `::ffff:${DATACENTER}`, version: 4, level: 'low', intercepted: true });
  expect(await one(`ip=${WHITELISTED}&level=high`)).toMatchObject({
    category: 'carrier',
    signals: { asn_blacklist: false, org_keyword: 'cloud', carrier_whitelist: 'telecom' },
    intercept: { low: false, medium: false, high: false },
  });
  expect(await one(`ip=${PRIVATE}&level=off`)).toMatchObject({ found: false, asn: null, range: null, category: 'unknown', intercepted: false });
  expect(await one('ip=2a00:1450:4001::1')).toMatchObject({ version: 6, found: true, asn: 15169 });

  for (const [query, field] of [['ip=nope', 'ip'], ['', 'ip'], ['ip=', 'ip'], ['ip=8.8.8.8&level=max', 'level'], ['ip=8.8.8.8&ips=1', 'ips']]) {
    expectReply(await on('GET', `/v1/ip/check?${query}`), '/v1/ip/check', 'GET', 400, { code: 'invalid_parameter', field });
  }
});

it('POST /v1/ip/check: 200 with one result per address in order; 400 naming ips or ips[n]', async () => {
  const batch = await on('POST', '/v1/ip/check', { json: { ips: [DATACENTER, CARRIER, PRIVATE], level: 'high' } });
  expectReply(batch, '/v1/ip/check', 'POST', 200);
  expect(batch.json.results.map((r: { ip: string; intercepted: boolean }) => [r.ip, r.intercepted])).toEqual([
    [DATACENTER, true],
    [CARRIER, false],
    [PRIVATE, false],
  ]);

  const cases: [unknown, string][] = [
    [{ ips: [DATACENTER, CARRIER, PRIVATE, 'nope'] }, 'ips[3]'],
    [{ ips: [DATACENTER, 5] }, 'ips[1]'],
    [{ ips: [] }, 'ips'],
    [{ ips: Array(51).fill(DATACENTER) }, 'ips'],
    [{ ips: DATACENTER }, 'ips'],
    [{}, 'ips'],
    [{ ips: [DATACENTER], level: 'max' }, 'level'],
    [{ ips: [DATACENTER], ip: DATACENTER }, 'ip'],
  ];
  for (const [json, field] of cases) {
    expectReply(await on('POST', '/v1/ip/check', { json }), '/v1/ip/check', 'POST', 400, { code: 'invalid_parameter', field });
  }
});
