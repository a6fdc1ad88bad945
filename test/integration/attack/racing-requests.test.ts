// Two hundred requests of one endpoint family at once, each on a connection
// of its own, half on each thread, for every family in turn (redirect, /v1
// reads, a /v1 body, route creation, console pages, console API and
// sign-in, /healthz, /metrics, static files, the 404). Every request must get
// one of its family's answers (sign-ins and bad keys may be refused with 429:
// those are their limits), the server must stay up, and a well-behaved client
// (the canary, its own thread and address) must be answered within
// CANARY_BOUND_MS every time: /healthz, a short link, and a route creation,
// whose storage commit shares libuv's thread pool with the sign-ins' password
// hashing. The limits under such races are judged in
// racing-requests-limits.test.ts.
//
// The bound: unstarved, the canary's answers take 15-20 ms (median) and at
// most 0.3-0.45 s here, attackers and server sharing two CPUs; starved, they
// take seconds (8-10 s for a route creation behind a burst of sign-ins before
// the password-work bound; 2-3 s with that bound lifted in this very test).
// 2 s lies between, as in the HTTP fuzzer's long run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertAnswering, assertCanary, type CanaryReport, endpointFamilies, type Family, startCanary, tally } from '../../helpers/attack.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { createRoute, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let families: Family[];
beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
  families = await endpointFamilies(server);
});
afterAll(() => server?.close());

const RACERS = 200;
/** The racers come from a few addresses, so that the per-address connection cap (256) is not what is judged here. */
const ADDRESSES = 4;
const CANARY_BOUND_MS = 2000;

it('answers 200 racing requests of every family and keeps serving a well-behaved client', async () => {
  const route = await createRoute(server);
  let report: CanaryReport;
  const canary = startCanary(
    server,
    [
      { path: '/healthz', status: 200 },
      { path: `/r/${route.code}`, status: 302 },
      { method: 'POST', path: '/v1/routes', key: server.apiKey, json: { name: 'canary', page_a: 'https://a.example/', page_b: 'https://b.example/' }, status: 201 },
    ],
    CANARY_BOUND_MS,
  );
  const seen: Record<string, Record<number, number>> = {};
  try {
    for (const family of families) {
      const answers = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          rawRequest(family.request, { port: server.ports[i % 2], ca: server.ca, timeoutMs: 15_000, localAddress: `127.0.3.${1 + (i % ADDRESSES)}` }),
        ),
      );
      seen[family.name] = tally(answers.map((a) => a.status));
      const wrong = answers.filter((a) => !family.statuses.includes(a.status));
      expect(wrong.map((a) => `${a.outcome} ${a.status} ${a.raw.slice(0, 80)}`), `${family.name}: ${JSON.stringify(seen[family.name])}`).toEqual([]);
    }
  } finally {
    report = await canary.stop();
  }
  assertCanary(report!, `${RACERS} racing requests of each family (answers: ${JSON.stringify(seen)})`);
  await assertAnswering(server);
  expect(server.process.exitCode).toBeNull();
});
