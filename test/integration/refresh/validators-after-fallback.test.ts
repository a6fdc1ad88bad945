// A 304 counts only for the data that is installed. The publisher's data is
// installed; the publisher is down one day and the next source (here the
// package, the default last resort; or a stale mirror) is installed instead;
// the publisher is back with the same file. Before the fix the refresh kept
// the publisher's old validators, got 304 and recorded `unchanged` from the
// publisher while the database held the fallback's (older) data, until the
// publisher's file changed. Installing from one source now drops the other
// sources' validators, so the publisher's file is fetched and installed again.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { listenLoopback, type Loopback } from '../../helpers/loopback.js';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../../helpers/ipdb-cache.js';
import { databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let publisher: Loopback;
let down = false;
let server: TestServer;
let location = '';

beforeAll(async () => {
  const source = http.createServer((req, res) => {
    if (down) {
      res.writeHead(503).end('down\n');
      return;
    }
    const file = path.basename((req.url ?? '').split('?')[0]);
    const etag = `"${file}-1"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { ETag: etag }).end();
      return;
    }
    const body = readFileSync(path.join(ROOT, 'node_modules', '@ip-location-db', 'asn', file));
    res.writeHead(200, { ETag: etag, 'Content-Length': String(body.length) }).end(body);
  });
  publisher = await listenLoopback(source);
  const base = publisher.base;
  location = `${base}/asn-ipv4.csv|${base}/asn-ipv6.csv`;
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: `${location},package:` } });
});
afterAll(async () => {
  await server?.close();
  await publisher?.close();
});

it('does not call the fallback data unchanged when the publisher answers 304 again', async () => {
  const first = await refreshNow(server, server.apiKey);
  expect(first.last_refresh!.outcome).toBe('updated');
  expect(first.source).toMatch(/^http:/);

  down = true;
  const fallback = await refreshNow(server, (await newAccount(server, 'publisher down')).api_key);
  expect(fallback.last_refresh!.outcome).toBe('updated');
  expect(fallback.source).toMatch(/^package /);

  down = false;
  const back = await refreshNow(server, (await newAccount(server, 'publisher back')).api_key);
  const serving = await databaseStatus(server);
  // Either the publisher's data is installed again, or the refresh does not claim it is current.
  expect({ outcome: back.last_refresh!.outcome, recordSource: back.last_refresh!.source, servingSource: serving.source }).toEqual({
    outcome: 'updated',
    recordSource: expect.stringMatching(/^http:/),
    servingSource: expect.stringMatching(/^http:/),
  });
}, 120_000);
