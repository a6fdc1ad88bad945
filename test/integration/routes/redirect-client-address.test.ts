// The address the redirect classifies: X-Forwarded-For is read right to left
// when the peer is a trusted proxy (the first untrusted hop is the client,
// anything further left is the client's own claim), and ignored when the
// peer is not trusted. Amazon 3.5.0.1 is intercepted at medium, Deutsche
// Telekom 80.128.0.1 is not. Several X-Forwarded-For lines are one list, in
// order (a proxy may add its hop as a line of its own): the first line alone
// was read, so the client's own line chose its address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { header, rawRequest } from '../../helpers/raw-http.js';
import { createRoute, NO_RATE_LIMIT, pageOf, RedirectClient, type RouteBody, TRUST_LOOPBACK, visitorId } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

// default group a, every real visitor to b: 'a' means intercepted.
const settings = { intercept_level: 'medium', default_group: 'a', split_ratio: 0 };

describe('behind a trusted proxy (loopback)', () => {
  let server: TestServer;
  let client: RedirectClient;
  let route: RouteBody;
  beforeAll(async () => {
    server = await startServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
    client = new RedirectClient(server);
    route = await createRoute(server, settings);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it.each<[string, 'a' | 'b']>([
    ['3.5.0.1', 'a'],
    ['80.128.0.1, 3.5.0.1', 'a'], // the rightmost untrusted hop decides
    ['3.5.0.1, 80.128.0.1', 'b'], // a data-center claim further left is not believed
    ['3.5.0.1, 127.0.0.1', 'a'], // trusted hops on the right are skipped
    ['80.128.0.1,127.0.0.1, ::1', 'b'],
    ['not-an-address', 'b'], // garbage: the peer (loopback, not in the database) is the client
  ])('X-Forwarded-For: %s → page %s', async (xff, page) => {
    expect(pageOf(await client.visit(route.code, { forwardedFor: xff, visitor: visitorId() }))).toBe(page);
  });

  it.each<[string[], 'a' | 'b']>([
    [['80.128.0.1', '3.5.0.1'], 'a'], // the client's claim, then the proxy's own line
    [['', '3.5.0.1'], 'a'], // an empty first line hides nothing
    [['3.5.0.1', '80.128.0.1'], 'b'],
    [['80.128.0.1, 10.0.0.1', '3.5.0.1, 127.0.0.1'], 'a'],
  ])('X-Forwarded-For given as the lines %j → page %s', async (lines, page) => {
    const head = [`GET /r/${route.code} HTTP/1.1`, 'Host: localhost', ...lines.map((l) => `X-Forwarded-For: ${l}`), 'Connection: close', '', ''].join('\r\n');
    const answer = await rawRequest(head, { port: server.ports[0], ca: server.ca });
    expect(answer.status).toBe(302);
    expect(header(answer, 'Location')).toBe(page === 'a' ? route.page_a : route.page_b);
  });
});

describe('without a trusted proxy', () => {
  let server: TestServer;
  let client: RedirectClient;
  let route: RouteBody;
  beforeAll(async () => {
    server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_TRUST_PROXY: undefined } });
    client = new RedirectClient(server);
    route = await createRoute(server, settings);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('ignores X-Forwarded-For and classifies the socket peer', async () => {
    expect(pageOf(await client.visit(route.code, { forwardedFor: '3.5.0.1', visitor: visitorId() }))).toBe('b');
    expect(pageOf(await client.visit(route.code, { visitor: visitorId() }))).toBe('b');
  });
});
