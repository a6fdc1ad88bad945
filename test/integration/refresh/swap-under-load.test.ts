// Three database swaps under continuous traffic lose no request and give no
// wrong answer. While refreshes install three new databases (built from the
// same data, so every answer must stay the same), redirects of a data-center
// visitor (intercepted: page A) and of a carrier visitor (split: page B) and
// IP checks run without pause on both threads. Every response is the right
// one, every check names the old or one of the new databases, and no thread
// ever answers from an older database than one it already answered from.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { afterAll, beforeAll, expect, it, onTestFailed } from 'vitest';
import { request } from '../../helpers/client.js';
import { databaseStatus, metric, newAccount, refreshNow, serverWithValidSource } from '../../helpers/refresh.js';
import { TRUST_LOOPBACK } from '../../helpers/routes.js';

const THREADS = 2;
const LOOPS_PER_THREAD = 2;
const DATA_CENTER = '8.8.8.8'; // Google AS15169, blacklisted
const CARRIER = '80.128.0.1'; // Deutsche Telekom AS3320
const PAGE_A = 'https://a.example.com/landing';
const PAGE_B = 'https://b.example.com/landing';

let agents: https.Agent[];
const ctx = serverWithValidSource({ threads: THREADS, env: TRUST_LOOPBACK });
beforeAll(async () => {
  agents = ctx.server.ports.map(() => new https.Agent({ keepAlive: true, maxSockets: 16, ca: ctx.server.ca }));
});
afterAll(async () => {
  for (const a of agents ?? []) a.destroy();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A GET over a kept-alive connection to one thread (thousands of fresh TLS handshakes would measure TLS, not the swap). */
function get(thread: number, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: ctx.server.ports[thread], path, headers, agent: agents[thread], timeout: 15_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer for ${path} within the timeout`)));
    req.on('error', reject);
    req.end();
  });
}

const visit = (thread: number, code: string, ip: string, visitor: string) =>
  get(thread, `/r/${code}`, { 'X-Forwarded-For': ip, Cookie: `sg_vid=${visitor}` });
const parse = (text: string) => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};
const checkOn = (thread: number, ip: string) => get(thread, `/v1/ip/check?ip=${ip}`, { Authorization: `Bearer ${ctx.server.apiKey}` });

it('answers every redirect and check correctly through three swaps', async () => {
  onTestFailed(() => console.log(ctx.server.output().slice(-5000)));
  // Intercepted visitors go to page A; everyone else (split_ratio 0) to page B.
  const created = await request({
    port: ctx.server.ports[0],
    ca: ctx.server.ca,
    method: 'POST',
    path: '/v1/routes',
    key: ctx.server.apiKey,
    json: { name: 'swap under load', page_a: PAGE_A, page_b: PAGE_B, intercept_level: 'medium', default_group: 'a', split_ratio: 0 },
  });
  expect(created.status, created.body).toBe(201);
  const code = created.json.code as string;
  const keys = await Promise.all([1, 2, 3].map(async (i) => (await newAccount(ctx.server, `swap ${i}`)).api_key));
  const builtAt = [(await databaseStatus(ctx.server)).built_at!];

  const wrong: string[] = [];
  /** Per check: the thread, the newest database that thread had answered from when it was sent, the database that answered. */
  const seen: { thread: number; floor: string; answer: string }[] = [];
  const newest = ctx.server.ports.map(() => builtAt[0]);
  let redirects = 0;
  let running = true;

  const loop = async (thread: number, n: number) => {
    while (running) {
      const visitor = randomBytes(16).toString('base64url');
      const [dc, carrier] = await Promise.all([
        visit(thread, code, DATA_CENTER, visitor).catch((e: Error) => e),
        visit(thread, code, CARRIER, visitor).catch((e: Error) => e),
      ]);
      for (const [v, page] of [[dc, PAGE_A], [carrier, PAGE_B]] as const) {
        if (v instanceof Error) wrong.push(`thread ${thread}: redirect failed: ${v.message}`);
        else if (v.status !== 302 || v.headers.location !== page) wrong.push(`thread ${thread}: redirect answered ${v.status} ${v.headers.location}`);
        else redirects++;
      }
      const floor = newest[thread];
      const c = await checkOn(thread, n % 2 ? DATA_CENTER : `::ffff:${DATA_CENTER}`).catch((e: Error) => e);
      const json = c instanceof Error || c.status !== 200 ? null : parse(c.body);
      if (c instanceof Error) {
        wrong.push(`thread ${thread}: check failed: ${c.message}`);
      } else if (json?.found !== true || json.asn !== 15169 || json.intercepted !== true) {
        wrong.push(`thread ${thread}: check answered ${c.status} ${c.body}`);
      } else {
        const answer = json.database.built_at as string;
        seen.push({ thread, floor, answer });
        if (answer > newest[thread]) newest[thread] = answer;
      }
    }
  };
  const load = Array.from({ length: THREADS * LOOPS_PER_THREAD }, (_, i) => loop(i % THREADS, i));

  try {
    for (const key of keys) {
      await new Promise((r) => setTimeout(r, 300)); // traffic on the current database first
      ctx.sources.revision++; // new ETag: a real download and build each time
      const status = await refreshNow(ctx.server, key);
      expect(status.last_refresh!.outcome, JSON.stringify(status.last_refresh)).toBe('updated');
      builtAt.push(status.built_at!);
    }
    // Traffic on the last database too, on every thread.
    const last = builtAt[builtAt.length - 1];
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !ctx.server.ports.every((_, t) => seen.some((s) => s.thread === t && s.answer === last))) {
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    running = false;
    await Promise.all(load);
  }

  expect(wrong.slice(0, 10)).toEqual([]);
  expect(new Set(builtAt).size).toBe(4);
  // Every check came from a database that was installed, never from an older
  // one than the thread had already served, and each database answered.
  const order = (b: string) => builtAt.indexOf(b);
  expect(seen.filter((s) => order(s.answer) < 0)).toEqual([]);
  expect(seen.filter((s) => order(s.answer) < order(s.floor))).toEqual([]);
  for (let thread = 0; thread < THREADS; thread++) {
    expect(new Set(seen.filter((s) => s.thread === thread).map((s) => s.answer))).toEqual(new Set(builtAt));
  }
  expect(redirects).toBeGreaterThan(1000);
  expect(await metric(ctx.server, 'splitguard_ipdb_swaps_total')).toBe(3 * THREADS);
}, 240_000);
