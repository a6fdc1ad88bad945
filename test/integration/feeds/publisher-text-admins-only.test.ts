// What a publisher served (the first malformed line of a download, a
// redirect's target) is quoted in a refresh's errors for admins only
// (finding 106): a tenant's GET /v1/ip/database reads each error with “…” in
// its place, in the feeds' last_error and in the last refresh's nodes and
// feeds alike, while an admin's reads it whole. Before, every tenant read the
// line, whatever a redirect had made the refresh fetch.
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenLoopback, type Loopback } from '../../helpers/loopback.js';
import { databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let publisher: Loopback;
let server: TestServer;

beforeAll(async () => {
  const feed = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/moved') res.writeHead(302, { Location: 'ftp://publisher-host-7c2d.example/list' }).end();
    else if (path === '/tor') res.end('<html>publisher-secret-5e1c</html>\n');
    else if (path === '/asn.csv') res.end('asn-secret-91b0,1.0.0.255,13335,X\n'.repeat(10));
    else res.writeHead(404).end();
  });
  publisher = await listenLoopback(feed);
  server = await startServer({
    env: {
      ...NO_RATE_LIMIT,
      SPLITGUARD_IPDB_SOURCES: `${publisher.base}/asn.csv`,
      SPLITGUARD_FEEDS: 'tor',
      SPLITGUARD_FEED_SOURCES: `tor=${publisher.base}/moved,${publisher.base}/tor`,
    },
  });
});
afterAll(async () => {
  await server?.close();
  await publisher?.close();
});

const status = async (key: string) => {
  const json = await databaseStatus(server, 0, key);
  return { text: JSON.stringify(json), json };
};

it("shows the publisher's text in refresh errors to admins only", async () => {
  const tenant = await newAccount(server, 'tenant');
  await refreshNow(server, tenant.api_key);
  const base = publisher.base;
  const torError = (moved: string, line: string) =>
    `${base}/moved: redirect 1 (from ${base}/moved) is to a ftp: URL: “${moved}”; the feed is invalid: tor (${base}/tor): 1 of 1 entries are malformed (e.g. “${line}”)`;
  const asnError = (field: string) => `the database source is invalid: part-0-asn.csv: 10 of 10 lines are malformed (first: line 1, invalid address “${field}”)`;

  const seen = await status(tenant.api_key);
  expect(seen.text).not.toMatch(/secret|publisher-host/);
  expect(seen.json.feeds.find((f) => f.name === 'tor')!.last_error).toBe(torError('…', '…'));
  expect(seen.json.last_refresh!.feeds![0].error).toBe(torError('…', '…'));
  expect(seen.json.last_refresh!.nodes.map((n) => n.error)).toEqual([asnError('…')]);

  // The bootstrap key is an admin's.
  const whole = await status(server.apiKey);
  expect(whole.json.feeds.find((f) => f.name === 'tor')!.last_error).toBe(torError('ftp://publisher-host-7c2d.example/list', '<html>publisher-secret-5e1c</html>'));
  expect(whole.json.last_refresh!.feeds![0].error).toBe(torError('ftp://publisher-host-7c2d.example/list', '<html>publisher-secret-5e1c</html>'));
  expect(whole.json.last_refresh!.nodes.map((n) => n.error)).toEqual([asnError('asn-secret-91b0')]);
}, 120_000);
