// A publisher's redirect may not lead the refresh into an internal network of
// another kind than the configured host's (finding 106): refused before any
// connection, naming the step and its target, and the next node is tried.
// Before, a feed on the internet could redirect to 127.0.0.1, 10.0.0.0/8 or
// 169.254.169.254, and the first malformed line of what answered there was
// quoted in the feed's last_error, which every tenant reads.
//
// The publishers of a test listen on 127.0.0.1, so a configured host of
// another kind is made with 0.0.0.0, which Linux connects to this host itself
// (to the publisher's 127.0.0.1 listener): its redirect to the name
// `localhost` (127.0.0.1 in /etc/hosts) is refused on what the name resolves
// to, as it connects. A redirect from 127.0.0.1 to 127.0.0.1 stays allowed.
import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { torList } from '../../helpers/feed-server.js';
import { listenLoopback, type Loopback } from '../../helpers/loopback.js';
import { refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);
let internal: Loopback;
/** Every connection the internal service was ever asked for. */
const reached: Socket[] = [];
let publisher: Loopback;
let server: TestServer;
const port = (l: Loopback) => new URL(l.base).port;

beforeAll(async () => {
  // What an internal service (an admin page, a metadata endpoint) would answer.
  const service = http.createServer((_req, res) => res.end('internal-secret-token-3f9a\n'));
  service.on('connection', (s: Socket) => reached.push(s));
  internal = await listenLoopback(service);
  const routes: Record<string, string> = {
    '/to-unspecified': `http://0.0.0.0:${port(internal)}/secret`,
    '/to-metadata': 'http://169.254.169.254/latest/meta-data/iam/',
    '/to-private': 'http://10.0.0.1/admin',
    '/to-mapped': `http://[::ffff:0.0.0.0]:${port(internal)}/secret`,
    '/to-localhost': `http://localhost:${port(internal)}/secret`,
  };
  const feed = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path in routes) res.writeHead(302, { Location: routes[path] }).end();
    // Loopback to loopback, by name and by address.
    else if (path === '/to-own-name') res.writeHead(302, { Location: `http://localhost:${port(publisher)}/tor` }).end();
    else if (path === '/to-own-address') res.writeHead(302, { Location: `${publisher.base}/tor` }).end();
    else if (path === '/tor') res.end(torList(EXITS));
    else res.writeHead(404).end();
  });
  publisher = await listenLoopback(feed);
  const via0 = `http://0.0.0.0:${port(publisher)}`;
  const byName = `http://localhost:${port(publisher)}`;
  const nodes = [
    ...['/to-unspecified', '/to-metadata', '/to-private', '/to-mapped'].map((p) => `${publisher.base}${p}`),
    `${via0}/to-localhost`,
    `${byName}/to-unspecified`,
    `${byName}/to-own-address`,
  ];
  // A second feed (any cidr-lines one) for the step from an address to a name.
  const sources = `tor=${nodes.join(',')};openai=${publisher.base}/to-own-name`;
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor,openai', SPLITGUARD_FEED_SOURCES: sources } });
});
afterAll(async () => {
  await server?.close();
  await publisher?.close();
  await internal?.close();
});

it('refuses a redirect to an internal address of another kind than the configured host, without connecting', async () => {
  const status = await refreshNow(server, server.apiKey);
  const byName = `http://localhost:${port(publisher)}`;
  // Redirects from a loopback host to loopback are followed: from localhost (which resolved to loopback) to 127.0.0.1, and back.
  expect(status.last_refresh!.feeds).toEqual([
    { feed: 'tor', outcome: 'updated', source: `${byName}/to-own-address`, error: null, ms: expect.any(Number) },
    { feed: 'openai', outcome: 'updated', source: `${publisher.base}/to-own-name`, error: null, ms: expect.any(Number) },
  ]);
  expect(status.feeds.filter((f) => f.name === 'tor' || f.name === 'openai')).toMatchObject([
    { ranges: 40, last_outcome: 'updated' },
    { ranges: 40, last_outcome: 'updated' },
  ]);

  const failed = server.logs().filter((l) => l.event === 'feed_source_failed').map((l) => l.error as string);
  const refused = (configured: string, target: string, what: string) =>
    `${configured}: redirect 1 (from ${configured}) is to “${target}”, ${what}: not followed, as only a configured host of that kind may redirect there`;
  const q = port(internal);
  expect(failed.slice(0, 4)).toEqual([
    refused(`${publisher.base}/to-unspecified`, `http://0.0.0.0:${q}/secret`, 'an unspecified address'),
    refused(`${publisher.base}/to-metadata`, 'http://169.254.169.254/latest/meta-data/iam/', 'a link-local address'),
    refused(`${publisher.base}/to-private`, 'http://10.0.0.1/admin', 'a private address'),
    refused(`${publisher.base}/to-mapped`, `http://[::ffff:0:0]:${q}/secret`, 'an unspecified address'),
  ]);
  // A name is judged on what it resolves to as the step connects (localhost: 127.0.0.1, on some systems ::1 first).
  const resolved = /whose name resolves to “([^”]*)”/.exec(failed[4])?.[1] ?? '';
  expect(['127.0.0.1', '::1']).toContain(resolved);
  expect(failed.slice(4)).toEqual([
    refused(`http://0.0.0.0:${port(publisher)}/to-localhost`, `http://localhost:${q}/secret`, `whose name resolves to “${resolved}”, a loopback address`),
    // A configured name's kind is what it resolved to: loopback, so 0.0.0.0 is still refused.
    refused(`${byName}/to-unspecified`, `http://0.0.0.0:${q}/secret`, 'an unspecified address'),
  ]);
  // Nothing asked the internal service anything, and the refusals took no connect timeout.
  expect(reached).toEqual([]);
  expect(status.last_refresh!.feeds[0].ms).toBeLessThan(5_000);
}, 120_000);
