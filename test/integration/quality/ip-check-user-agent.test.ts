// The IP check shows what the redirect would make of a user agent: ?ua= (and
// the batch's "user_agent") fill signals.user_agent with the verdict and the
// matched product token, and `intercept` covers the user agent too; without
// it the signal is null. A user agent over 1024 characters is 400 naming it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

const get = (ip: string, ua?: string) => api(server, 'GET', `/v1/ip/check?ip=${ip}${ua === undefined ? '' : `&ua=${encodeURIComponent(ua)}`}`);

it('reports the crawler and its token, and intercepts at every level', async () => {
  const r = await get('80.187.0.1', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)');
  expect(r.status).toBe(200);
  expect(r.json.signals.user_agent).toEqual({ crawler: true, match: 'facebookexternalhit' });
  expect(r.json.intercept).toEqual({ low: true, medium: true, high: true });
  expect(r.json.category).toBe('carrier');
});

it('reports a browser as no crawler, an empty user agent as intercepted at high only', async () => {
  const browser = await get('80.187.0.1', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15');
  expect(browser.json.signals.user_agent).toEqual({ crawler: false, match: null });
  expect(browser.json.intercept).toEqual({ low: false, medium: false, high: false });
  const empty = await get('80.187.0.1', '');
  expect(empty.json.intercept).toEqual({ low: false, medium: false, high: true });
  expect((await get('80.187.0.1')).json.signals.user_agent).toBeNull();
});

it('takes user_agent in the batch, and refuses an overlong one', async () => {
  const batch = await api(server, 'POST', '/v1/ip/check', { ips: ['80.187.0.1', '8.8.8.8'], user_agent: 'curl/8.4.0' });
  expect(batch.json.results.map((x: { signals: { user_agent: unknown } }) => x.signals.user_agent)).toEqual([
    { crawler: true, match: 'curl' },
    { crawler: true, match: 'curl' },
  ]);
  const long = await get('80.187.0.1', 'x'.repeat(1025));
  expect(long.status).toBe(400);
  expect(long.json).toMatchObject({ code: 'invalid_parameter', field: 'ua' });
});
