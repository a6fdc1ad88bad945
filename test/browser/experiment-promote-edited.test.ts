// "Promote" on the route page after the route was edited elsewhere: the page
// loads a route of two variants; through the API page B then moves and a
// variant C is added; once the page's 1-second poll shows C, promoting B keeps
// B's new URL and C (at weight 0), and C, which did not exist when the page
// loaded, can be promoted too. The list the promote sends is the route as
// stored now, not as the page first loaded it.
import { expect, it } from 'vitest';
import { useSignedInConsole, visit } from '../helpers/browser.js';
import { api, NO_RATE_LIMIT } from '../helpers/routes.js';

const c = useSignedInConsole({ env: NO_RATE_LIMIT });

const stored = async (id: number) => (await api(c.server, 'GET', `/v1/routes/${id}`)).json.variants;

it('promotes from the route as it is now, keeping edits made since the page loaded', async () => {
  const route = (await api(c.server, 'POST', '/v1/routes', {
    name: 'Promote after edit', page_a: 'https://a.example/old', page_b: 'https://b.example/old', intercept_level: 'off',
  })).json;
  await visit(c.page, `/routes/${route.id}`, 'Promote after edit');
  const row = (k: string) => c.page.locator(`table.experiment tr[data-variant="${k}"]`);
  await row('b').waitFor();

  // Elsewhere (another tab, an integration's key): B moves and C is added.
  const edit = await api(c.server, 'PUT', `/v1/routes/${route.id}`, {
    variants: [{ url: 'https://a.example/old', weight: 1 }, { url: 'https://b.example/NEW', weight: 1 }, { url: 'https://c.example/NEW', weight: 1 }],
  });
  expect(edit.status).toBe(200);
  await row('c').waitFor({ timeout: 5000 }); // drawn by the page's poll

  const promote = async (k: string) => {
    await row(k).getByRole('button', { name: `Promote variant ${k.toUpperCase()}` }).click();
    await c.page.getByRole('dialog').getByRole('button', { name: 'Promote' }).click();
  };
  await promote('b');
  await expect.poll(() => stored(route.id), { timeout: 5000 }).toEqual([
    { key: 'a', url: 'https://a.example/old', weight: 0 },
    { key: 'b', url: 'https://b.example/NEW', weight: 100 },
    { key: 'c', url: 'https://c.example/NEW', weight: 0 },
  ]);
  await expect.poll(() => c.page.locator('#toast').textContent()).toBe('Variant B promoted to 100 %');

  // C was added after the page loaded; promoting it sends every URL as stored.
  await promote('c');
  await expect.poll(() => stored(route.id), { timeout: 5000 }).toEqual([
    { key: 'a', url: 'https://a.example/old', weight: 0 },
    { key: 'b', url: 'https://b.example/NEW', weight: 0 },
    { key: 'c', url: 'https://c.example/NEW', weight: 100 },
  ]);
  await expect.poll(() => c.page.locator('#toast').textContent()).toBe('Variant C promoted to 100 %');
  expect(await c.page.getByRole('alert').count()).toBe(0);
});
