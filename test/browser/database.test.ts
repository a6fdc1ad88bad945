// The database page: what is serving, a refresh button that starts a refresh
// (202) and then shows its outcome per source node, and the hourly allowance
// (a second trigger is refused with the time it may come). The sources are a
// loopback HTTP server: a node that answers 404, then the package's CSVs with
// one organization renamed to markup, which the IP check must show as text.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, openConsole, screenshot, signInAdmin, visit } from '../helpers/browser.js';
import { ROOT } from '../helpers/ipdb-cache.js';
import { startServer, type TestServer } from '../helpers/server.js';

const CSV_DIR = path.join(ROOT, 'node_modules', '@ip-location-db', 'asn');
const PAYLOAD = '<img src=x onerror=window.__xss=1>';
// 1.0.4.0-1.0.7.255 is "Gtelecom Pty Ltd" in the package; the served copy names it PAYLOAD.
const ROW = '1.0.4.0,1.0.7.255,38803,Gtelecom Pty Ltd\n';

let sources: http.Server;
let base = '';
let server: TestServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const v4 = readFileSync(path.join(CSV_DIR, 'asn-ipv4.csv'), 'utf8');
  expect(v4).toContain(ROW);
  const files: Record<string, Buffer> = {
    '/asn-ipv4.csv': Buffer.from(v4.replace(ROW, `1.0.4.0,1.0.7.255,38803,${PAYLOAD}\n`)),
    '/asn-ipv6.csv': readFileSync(path.join(CSV_DIR, 'asn-ipv6.csv')),
  };
  sources = http.createServer((req, res) => {
    const body = files[req.url ?? ''];
    if (!body) {
      res.writeHead(404).end('not here');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => sources.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(sources.address() as AddressInfo).port}`;
  [server, browser] = await Promise.all([
    startServer({ env: { SPLITGUARD_IPDB_SOURCES: `${base}/gone.csv,${base}/asn-ipv4.csv|${base}/asn-ipv6.csv` } }),
    launchChromium(),
  ]);
  ({ page } = await openConsole(browser, server));
  await signInAdmin(page, server);
  await visit(page, '/database', 'IP database');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((resolve) => sources?.close(resolve));
});

it('shows the serving database', async () => {
  await page.getByText('No refresh has run yet.').waitFor();
  expect(await page.locator('.db-version').textContent()).toMatch(/^\d{4}\.\d{2}\.\d{2}|^[0-9.]+$/);
  const facts = await page.locator('dl.facts').first().textContent();
  expect(facts).toMatch(/IPv4 ranges[0-9,]{6,}/);
  expect(facts).toMatch(/IPv6 ranges[0-9,]{5,}/);
  expect(facts).toMatch(/Built20\d\d-\d\d-\d\d \d\d:\d\d UTC \(/);
});

it('starts a refresh (202) and shows its outcome per source node', async () => {
  const answered = page.waitForResponse((r) => r.url().endsWith('/console/api/v1/ip/update'));
  await page.getByRole('button', { name: 'Refresh now' }).click();
  const r = await answered;
  expect(r.status()).toBe(202);
  expect((await r.json()).status).toBe('started');
  await page.getByText(/^Refresh started at .* The next manual refresh is allowed at /).waitFor();

  const outcome = page.locator('.last-refresh .outcome');
  await expect.poll(() => outcome.textContent().catch(() => null), { timeout: 90_000, interval: 500 }).toBe('updated');
  const nodes = await page.locator('table.nodes tbody tr').evaluateAll((rows) =>
    rows.map((row) => [...row.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)),
  );
  expect(nodes).toEqual([
    [`${base}/gone.csv`, 'failed'],
    [`${base}/asn-ipv4.csv | ${base}/asn-ipv6.csv`, 'updated'],
  ]);
  expect(await page.locator('.refresh-status').textContent()).toBe('Refresh finished: updated.');
  expect(await page.locator('.last-refresh').textContent()).toContain('api (account 1)');
  await screenshot(page, 'database');
});

it('respects the hourly allowance: a second trigger is refused with its time', async () => {
  const answered = page.waitForResponse((r) => r.url().endsWith('/console/api/v1/ip/update'));
  await page.getByRole('button', { name: 'Refresh now' }).click();
  const r = await answered;
  expect(r.status()).toBe(429);
  expect(Number(r.headers()['retry-after'])).toBeGreaterThan(3500);
  await page.getByText(/^Not yet: the database may be refreshed once an hour: the next refresh may be triggered at /).waitFor();
});

it('shows an organization name from the new database as text, never as markup', async () => {
  await visit(page, '/ip?ip=1.0.4.1', 'IP check');
  const org = page.locator('article.ip-result[data-ip="1.0.4.1"] .organization');
  await org.waitFor();
  expect(await org.textContent()).toBe(PAYLOAD);
  expect(await page.locator('article.ip-result img').count()).toBe(0);
  expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
});
