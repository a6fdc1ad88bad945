// A cluster node's console while PostgreSQL is away: the route page keeps
// refreshing and says that its figures are the node's last read of them, and
// when; once PostgreSQL is back the note goes and the figures are live
// again. Before, the first refresh during the outage was 503 and stopped
// every refresh of the page, with nothing said.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, openConsole, signInAdmin, visit } from '../helpers/browser.js';
import { useCluster, useNodeClients } from '../helpers/cluster.js';
import { createRoute, NO_RATE_LIMIT, visitorId } from '../helpers/routes.js';

const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT });
const clients = useNodeClients(cluster, 1);
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (cluster.skip) return;
  browser = await launchChromium();
  ({ page } = await openConsole(browser, cluster.nodes[0]));
  await signInAdmin(page, cluster.nodes[0]);
});
afterAll(async () => {
  await browser?.close();
});

it.skipIf(cluster.skip)('shows the last figures with the time they were read, then live ones again', async () => {
  const route = await createRoute(cluster.node(0), { name: 'Away', intercept_level: 'off' });
  await visit(page, `/routes/${route.id}`, 'Away');
  for (let i = 0; i < 3; i++) expect((await clients[0].visit(route.code, { visitor: visitorId() })).status).toBe(302);
  const summary = page.locator('.stats-summary');
  await expect.poll(() => summary.textContent(), { timeout: 10_000, interval: 100 }).toMatch(/^3 clicks /);
  const note = page.getByRole('status').filter({ hasText: 'cluster storage' });
  expect(await note.count()).toBe(0);

  cluster.pg.stop();
  await note.waitFor({ timeout: 15_000 });
  expect(await note.textContent()).toMatch(/^The cluster storage is unreachable: figures as of \d{1,2}:\d{2}:\d{2}\s?[AP]M\.$/);
  await expect.poll(() => summary.textContent()).toMatch(/^3 clicks /);

  cluster.pg.start();
  for (let i = 0; i < 2; i++) expect((await clients[0].visit(route.code, { visitor: visitorId() })).status).toBe(302);
  // The note's paragraph stays, emptied.
  await expect.poll(() => note.count(), { timeout: 20_000, interval: 200 }).toBe(0);
  await expect.poll(() => summary.textContent(), { timeout: 20_000, interval: 200 }).toMatch(/^5 clicks /);
}, 120_000);
