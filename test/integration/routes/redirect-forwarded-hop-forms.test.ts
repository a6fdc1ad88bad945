// X-Forwarded-For hops as proxies write them besides the bare address: with
// the client's port (`203.0.113.5:5555`, `[2001:db8::5]:443`: Azure
// Application Gateway, IIS ARR), bracketed, or with a zone id: each reads as
// its address, and a hop that still cannot be read ("unknown") never makes
// the client loopback for /metrics. Before, the reader knew only bare
// addresses and a hop it could not read made the trusted peer the client:
// behind such a proxy every visitor was "the proxy", no data-center visitor
// was intercepted, and behind one on the same host (loopback) every visitor
// read /metrics.
import { beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../helpers/raw-http.js';
import { createRoute, NO_RATE_LIMIT, pageOf, type RouteBody, TRUST_LOOPBACK, useRedirectServer, visitorId } from '../../helpers/routes.js';

const sg = useRedirectServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
let route: RouteBody;
beforeAll(async () => {
  route = await createRoute(sg.server, { intercept_level: 'medium', default_group: 'a', split_ratio: 0 });
});

describe('a data-center visitor written with its port or in brackets is still intercepted', () => {
  it.each(['3.5.0.1:5555', '[2600:1f18::1]', '[2600:1f18::1]:443', '80.128.0.1, 3.5.0.1:5555'])('X-Forwarded-For: %s → page a', async (xff) => {
    expect(pageOf(await sg.client.visit(route.code, { forwardedFor: xff, visitor: visitorId() }))).toBe('a');
  });
});

describe('/metrics is not answered to a forwarded visitor, whatever the form of its hop', () => {
  const get = (forwarded: string) =>
    rawRequest(`GET /metrics HTTP/1.1\r\nHost: links.example.com\r\nX-Forwarded-For: ${forwarded}\r\n\r\n`, { port: sg.server.ports[0], ca: sg.server.ca });
  it.each(['203.0.113.5', '203.0.113.5:5555', '[2001:db8::5]', '[2001:db8::5]:443', '2001:db8::5%eth0', 'unknown'])('X-Forwarded-For: %s → 404', async (xff) => {
    const answer = await get(xff);
    expect(answer.status, answer.body.slice(0, 120)).toBe(404);
  });
});
