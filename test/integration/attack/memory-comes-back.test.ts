// Memory comes back: two thousand hostile connections against every
// endpoint family (a third pipeline 50 copies of a request and leave without
// reading, by reset, close or half-close; a third are cut mid-head or
// mid-body; a third send a whole request and reset before the answer), and
// the server's resident memory (VmRSS of the server process itself, every
// thread included) must return to within RSS_TOLERANCE_MIB of what it was
// before, on its own, within SETTLE_MS.
//
// What comes back when: the answers buffered for the dropped connections are
// C memory, freed when uWS closes them; the JavaScript garbage of the
// requests stays in each thread's V8 heap until V8's memory reducer collects
// it, 8 s after the heap stops growing and again later (measured: RSS held at
// +50 to +90 MiB for 8 s after a burst, then fell in steps to within 0-16 MiB
// of the start, often below it). Hence the wait.
//
// The tolerance: RSS at the start was 140-143 MiB in every run; once the
// memory reducer had run it was 116-166 MiB (its first collection alone left
// +6 to +23 MiB; the later ones take it lower). 24 MiB over 2,000
// connections flags a leak of about 12 KiB or more per connection (a server
// made to keep every answer it wrote settled at +112 MiB and failed), while the
// leak this guards against (the answers buffered for a connection that never
// reads; issue 14 measured +92 MiB from one client) is far larger: RSS peaks
// at +130 MiB during these rounds.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertAnswering, type Ending, endpointFamilies, type Family, rssMiB, sendAndDrop, sleep } from '../../helpers/attack.js';
import { inParallel, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let families: Family[];
beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
  families = await endpointFamilies(server);
});
afterAll(() => server?.close());

const CONNECTIONS = 2000;
const COPIES = 50;
const ENDINGS: Ending[] = ['rst', 'fin', 'half-close'];
const RSS_TOLERANCE_MIB = 24;
/** Two of V8's memory-reducer collections (8 s after the heap stops growing, then again) and margin. */
const SETTLE_MS = 40_000;

/** The i-th hostile connection: family, shape and ending in turn. */
function hostile(i: number): Promise<void> {
  const family = families[i % families.length];
  const ending = ENDINGS[Math.floor(i / families.length) % ENDINGS.length];
  const port = server.ports[i % server.ports.length];
  const address = `127.0.9.${1 + (i % 50)}`;
  switch (Math.floor(i / (families.length * ENDINGS.length)) % 3) {
    case 0:
      return sendAndDrop(port, family.request.repeat(COPIES), ending, 100, address);
    case 1: {
      const cut = family.request.length > family.headEnd ? family.headEnd + Math.floor((family.request.length - family.headEnd) / 2) : Math.floor(family.headEnd / 2);
      return sendAndDrop(port, family.request.slice(0, cut), ending, 20, address);
    }
    default:
      return sendAndDrop(port, family.request, 'rst', 0, address);
  }
}

it('returns near its starting memory after thousands of aborted, unread and pipelined connections', async () => {
  const pid = server.process.pid!;
  await sleep(1000);
  const start = rssMiB(pid);
  let peak = start;
  const watch = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
  await inParallel(Array.from({ length: CONNECTIONS }, (_, i) => i), 40, (i) => hostile(i));
  clearInterval(watch);
  const samples: number[] = [];
  const settleStart = performance.now();
  for (let rss = rssMiB(pid); ; rss = rssMiB(pid)) {
    samples.push(Math.round(rss));
    if (rss - start < RSS_TOLERANCE_MIB || performance.now() - settleStart > SETTLE_MS) break;
    await sleep(250);
  }
  const seen = { start: Math.round(start), peak: Math.round(peak), settledAfterMs: Math.round(performance.now() - settleStart), samples };
  expect(samples.at(-1)! - start, `RSS in MiB: ${JSON.stringify(seen)}`).toBeLessThan(RSS_TOLERANCE_MIB);
  await assertAnswering(server);
  expect(server.process.exitCode).toBeNull();
});
