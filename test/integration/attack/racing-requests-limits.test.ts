// Two hundred requests at once, each on a connection of its own, half on
// each thread, against each limit a stranger or a customer could try to
// outrun by racing: a check that read a count in one request and wrote it in
// another, or on another thread, would let the racers through together.
//   - the link quota: an account with quota 5 gets exactly 5 routes;
//   - the account rate limit (60 per minute): exactly 60 answered 200;
//   - failed authentications per address (30 per minute): exactly 30 x 401,
//     and a valid key from that address is still served;
//   - console sign-ins: per email at an address (5), per address (20).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tally } from '../../helpers/attack.js';
import { runCliJson } from '../../helpers/cli.js';
import { call, limits, request, type Response } from '../../helpers/client.js';
import { signInRequest } from '../../helpers/console-session.js';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

/** The contract's limit of 60 per minute per account. */
let limited: TestServer;
/** No rate limit, so that every racer reaches the quota check. */
let unlimited: TestServer;
beforeAll(async () => {
  [limited, unlimited] = await Promise.all([
    startServer({ threads: 2, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: undefined } }),
    startServer({ threads: 2, env: NO_RATE_LIMIT }),
  ]);
});
afterAll(() => Promise.all([limited?.close(), unlimited?.close()]));

const RACERS = 200;

/** `RACERS` calls of `one` at once, alternating threads. */
const race = (one: (thread: number, i: number) => Promise<Response>) => Promise.all(Array.from({ length: RACERS }, (_, i) => one(i % 2, i)));

it('creates no more routes than the quota', async () => {
  const account = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'racer', '--quota', '5'], unlimited.dataDir);
  const body = { name: 'race', page_a: 'https://a.example/', page_b: 'https://b.example/' };
  const answers = await race((thread) => api(unlimited, 'POST', '/v1/routes', body, { key: account.api_key, thread }));
  expect(tally(answers.map((a) => a.status))).toEqual({ 201: 5, 403: RACERS - 5 });
  for (const a of answers.filter((x) => x.status === 403)) expect(a.json.code).toBe('quota_exceeded');
  const created = new Set(answers.filter((a) => a.status === 201).map((a) => a.json.id as number));
  expect(created.size).toBe(5);
  const list = await api(unlimited, 'GET', '/v1/routes', undefined, { key: account.api_key });
  expect(list.json.pagination.total).toBe(5);
  expect(new Set((list.json.data as { id: number }[]).map((r) => r.id))).toEqual(created);
  const me = await api(unlimited, 'GET', '/v1/account', undefined, { key: account.api_key });
  expect(me.json).toMatchObject({ quota: 5, routes_created: 5, quota_remaining: 0 });
});

it('answers no more than 60 requests a minute for one account', async () => {
  const account = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'racer'], limited.dataDir);
  const answers = await race((thread) => call(limited.ports[thread], limited.ca, 'GET', '/v1/account', account.api_key));
  expect(tally(answers.map((a) => a.status))).toEqual({ 200: 60, 429: RACERS - 60 });
  for (const a of answers.filter((x) => x.status === 429)) {
    expect(a.json.code).toBe('rate_limited');
    expect(limits(a)).toMatchObject({ limit: 60, remaining: 0 });
  }
  // Each of the 60 saw its own count: remaining 0..59 once each.
  expect(answers.filter((a) => a.status === 200).map((a) => limits(a).remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
});

it('refuses failed authentications from one address past 30, and still serves a valid key from it', async () => {
  const from = '127.0.6.1';
  const answers = await race((thread, i) => limitedRequest(thread, `sk_live_racer${i}`, from));
  expect(tally(answers.map((a) => a.status))).toEqual({ 401: 30, 429: RACERS - 30 });
  const valid = await limitedRequest(0, limited.apiKey, from);
  expect(valid.status).toBe(200);
});

/** GET /v1/ip/database on `limited` with `key`, from `localAddress`. */
function limitedRequest(thread: number, key: string, localAddress: string): Promise<Response> {
  return request({ port: limited.ports[thread], ca: limited.ca, path: '/v1/ip/database', key, localAddress });
}

it('checks at most 5 sign-ins for one email at one address, and lets no racer in', async () => {
  await runCliJson(['user', 'create', '--email', 'racer@x.y', '--password', 'the-right-one', '--account', String(limited.accountId)], limited.dataDir);
  const from = '127.0.6.2';
  // The right password is sent last: before the fix every racer was checked and it got in.
  const answers = await race((thread, i) => signInRequest(limited, 'racer@x.y', i === RACERS - 1 ? 'the-right-one' : `wrong-${i}`, { localAddress: from, thread }));
  const seen = tally(answers.map((a) => a.status));
  expect(Object.keys(seen).every((s) => s === '401' || s === '429'), JSON.stringify(seen)).toBe(true);
  expect(seen[401], JSON.stringify(seen)).toBeGreaterThanOrEqual(1);
  expect(seen[401], JSON.stringify(seen)).toBeLessThanOrEqual(5);
});

it('checks at most 20 sign-ins from one address whatever the emails', async () => {
  const from = '127.0.6.3';
  const answers = await race((thread, i) => signInRequest(limited, `racer${i}@x.y`, 'whatever-it-is', { localAddress: from, thread }));
  const seen = tally(answers.map((a) => a.status));
  expect(Object.keys(seen).every((s) => s === '401' || s === '429'), JSON.stringify(seen)).toBe(true);
  expect(seen[401], JSON.stringify(seen)).toBeGreaterThanOrEqual(1);
  expect(seen[401], JSON.stringify(seen)).toBeLessThanOrEqual(20);
});
