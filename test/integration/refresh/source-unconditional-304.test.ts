// A 304 Not Modified means "unchanged since the validator you sent". A node
// that answers 304 to a request carrying no validator (If-None-Match,
// If-Modified-Since) has said nothing about its data: the node fails, named
// with that reason, and the refresh fails over to the next one. (Such a node
// was taken as "unchanged" and ended the refresh; a two-part node with one
// such part handed the build a part with no file.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshNow, sourceName } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { FILES, type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
let nodes: string[];
beforeAll(async () => {
  sources = await startSourceServer();
  nodes = [
    sources.location('notModified'),
    `${sources.base}/notModified/${FILES[0]}|${sources.base}/valid/${FILES[1]}`,
    sources.location('valid'),
  ];
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: nodes.join(',') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('fails a node that answers 304 to a request without a validator, and fails over', async () => {
  // The first refresh has no stored validators: every request is unconditional.
  const status = await refreshNow(server, server.apiKey);
  const record = status.last_refresh!;
  expect(sources.requests.every((r) => r.ifNoneMatch === undefined && r.ifModifiedSince === undefined)).toBe(true);
  expect(record).toMatchObject({ outcome: 'updated', source: sourceName(nodes[2]), error: null });
  expect(record.nodes.map((n) => [n.source, n.outcome])).toEqual([
    [sourceName(nodes[0]), 'failed'],
    [sourceName(nodes[1]), 'failed'],
    [sourceName(nodes[2]), 'updated'],
  ]);
  const unconditional = /^http:\/\/127\.0\.0\.1:\d+\/notModified\/asn-ipv4\.csv: HTTP 304 to a request without a validator$/;
  expect(record.nodes[0].error).toMatch(unconditional);
  expect(record.nodes[1].error).toMatch(unconditional);
  expect(status.source).toBe(sourceName(nodes[2]));
}, 120_000);
