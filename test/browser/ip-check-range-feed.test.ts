// The IP check page shows the range-feed signal: an address in a feed's
// published ranges (a Tor exit of the shipped snapshot, on an ASN no list
// names) is intercepted from low, and its card names the feed and its label,
// as the API answers.
import { expect, it } from 'vitest';
import { useSignedInConsole, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT } from '../helpers/routes.js';

const TOR_EXIT = '195.176.3.23'; // SWITCH, AS559: not blacklisted, a Tor exit in the snapshot

const c = useSignedInConsole({ env: NO_RATE_LIMIT });

it('names the range feed that holds the address, and no feed for an address outside them', async () => {
  await visit(c.page, `/ip?ip=${TOR_EXIT}`, 'IP check');
  const card = c.page.locator(`article.ip-result[data-ip="${TOR_EXIT}"]`);
  await card.waitFor();
  const expected = (await api(c.server, 'GET', `/v1/ip/check?ip=${TOR_EXIT}`)).json;
  expect(expected.signals).toMatchObject({ asn_blacklist: false, range_feed: { feed: 'tor', label: 'tor' } });
  expect(await card.locator('[data-signal="range_feed"]').textContent()).toBe('tor (tor)');
  expect(await card.locator('[data-signal="asn_blacklist"]').textContent()).toBe('not listed');
  expect(await card.locator('header .badge').textContent()).toBe('VPN / proxy');
  expect(await card.locator('.levels li[data-level]').allTextContents()).toEqual(['low: intercept', 'medium: intercept', 'high: intercept']);

  await visit(c.page, '/ip?ip=12.0.0.1', 'IP check');
  const carrier = c.page.locator('article.ip-result[data-ip="12.0.0.1"]');
  await carrier.waitFor();
  expect(await carrier.locator('[data-signal="range_feed"]').textContent()).toBe('not listed');
});
